/**
 * What a tool costs an agent before its first call: its tools/list entry as JSON, in characters and in
 * estimated tokens. About four characters of English or JSON make a token for current tokenizers: an
 * estimate, not a count, but a stable one (the size target is asserted on it).
 */
export const CHARS_PER_TOKEN = 4;

export function sizeOf(value: unknown): { chars: number; tokens: number } {
  const chars = JSON.stringify(value).length;
  return { chars, tokens: Math.ceil(chars / CHARS_PER_TOKEN) };
}
