/** The subset of JSON Schema (2020-12) the derived tool schemas use. */
export interface JsonSchema {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  minProperties?: number;
  maxProperties?: number;
  items?: JsonSchema;
  /** Strings, and null where a nullable output enum lists it among its values. */
  enum?: (string | null)[];
  anyOf?: JsonSchema[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
}

/**
 * Lets a schema also accept null, as a nullable GraphQL type does. Written as `anyOf` with one `type`
 * per branch rather than a `type` array: clients that map tool schemas onto single-type dialects
 * (MCP Inspector's portability check flags type arrays) read it without loss.
 */
export function orNull(schema: JsonSchema): JsonSchema {
  const { description, default: defaultValue, ...core } = schema;
  return {
    ...(description ? { description } : {}),
    ...(defaultValue !== undefined ? { default: defaultValue } : {}),
    anyOf: [core, { type: 'null' }],
  };
}
