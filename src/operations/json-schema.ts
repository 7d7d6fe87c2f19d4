/** The subset of JSON Schema (2020-12) the derived tool schemas use. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  minProperties?: number;
  maxProperties?: number;
  items?: JsonSchema;
  enum?: (string | null)[];
  const?: unknown;
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

/** Lets a schema also accept null, the way a nullable GraphQL type does. */
export function orNull(schema: JsonSchema): JsonSchema {
  if (schema.enum) return { ...schema, type: withNull(schema.type), enum: [...schema.enum, null] };
  if (schema.type) return { ...schema, type: withNull(schema.type) };
  return { anyOf: [schema, { type: 'null' }] };
}

function withNull(type: string | string[] | undefined): string[] {
  const types = Array.isArray(type) ? type : type ? [type] : [];
  return types.includes('null') ? types : [...types, 'null'];
}
