/**
 * Compiles the strict argument schemas of one catalogue load (input-schema.ts, form `strict`) into
 * validators, with one Ajv per load: a hot reload's catalogue gets its own, and the old one goes with
 * the old catalogue once its last call has finished (an Ajv keeps every schema it compiled).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { JsonSchema } from './json-schema.js';

export type ArgumentValidator = ValidateFunction;

export function createArgumentValidatorCompiler(): (schema: JsonSchema) => ArgumentValidator {
  const ajv = new Ajv2020({ allErrors: false, strict: false, useDefaults: false, coerceTypes: false });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  return (schema) => ajv.compile(schema);
}
