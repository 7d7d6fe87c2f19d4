/** GraphQL IDs are strings on the wire and positive integers in storage. */
import { badRequest } from '../errors.js';

const ID_PATTERN = /^[1-9][0-9]{0,9}$/;

/** Parses an id argument, or fails with BAD_REQUEST naming the argument. */
export function parseId(value: string | number, field: string): number {
  const text = String(value);
  const id = Number(text);
  if (!ID_PATTERN.test(text) || id > 2_147_483_647) {
    throw badRequest(`Invalid id for ${field}: '${text.slice(0, 40)}' is not a positive whole number`, field);
  }
  return id;
}
