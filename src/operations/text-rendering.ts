/**
 * A tool's optional short text rendering (tools.json `text`), for the text block of a successful result
 * in place of the serialized JSON: "9 movies: Se7en (1995, 8.6), ...". structuredContent is unchanged,
 * so clients that read it lose nothing; clients and models that read only the text read a sentence
 * instead of a JSON document.
 *
 * A template holds `{path}` placeholders: a selected field, dotted for nested ones (`content.title`); a
 * path through a list gives every value, joined with ", "; a null or missing value is "?". In
 * `template`, `{count}` is the number of elements of the list and `{items}` the list, each element
 * rendered with `item` and joined with ", ". The list is the data itself, or the field `items` names.
 * Every placeholder is checked against the operation's selection when the catalogue loads, so a typo
 * stops the boot (or a reload) instead of printing "?" forever.
 */
import { z } from 'zod';
import type { JsonSchema } from './json-schema.js';

export const textRenderingSchema = z
  .object({
    /** The whole text: fields of the data, and `{count}` and `{items}` when the data has a list. */
    template: z.string().min(1).max(500),
    /** The path of the list within the data, when the data is an object holding one (a page). */
    items: z.string().min(1).optional(),
    /** How one element of the list reads. */
    item: z.string().min(1).max(500).optional(),
    /** The whole text when the list is empty (with fields of the data, when it holds the list). */
    empty: z.string().min(1).max(500).optional(),
  })
  .strict();

export type TextRenderingSettings = z.infer<typeof textRenderingSchema>;

/** Renders a successful result's data as text. */
export type RenderText = (data: unknown) => string;

const PLACEHOLDER = /\{([^{}]*)\}/g;
const UNKNOWN = '?';

/** The schema of a value, its null branch removed (a rendered null is "?"). */
function nonNull(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema?.anyOf) return schema;
  return schema.anyOf.find((branch) => branch.type !== 'null');
}

/** The schema a dotted path leads to from `schema`, stepping into list elements; undefined if none. */
function schemaAt(schema: JsonSchema | undefined, path: string): JsonSchema | undefined {
  let current = nonNull(schema);
  for (const key of path.split('.')) {
    while (current?.type === 'array') current = nonNull(current.items);
    current = nonNull(current?.properties?.[key]);
    if (!current) return undefined;
  }
  return current;
}

/** Every value the path reaches from `value`, stepping into lists (a list's elements each count). */
function collect(value: unknown, keys: readonly string[], at: number, out: unknown[]): void {
  if (Array.isArray(value)) {
    for (const element of value) collect(element, keys, at, out);
    return;
  }
  if (at === keys.length) out.push(value);
  else if (value === null || typeof value !== 'object') out.push(undefined);
  else collect((value as Record<string, unknown>)[keys[at]!], keys, at + 1, out);
}

function valuesAt(value: unknown, keys: readonly string[]): unknown[] {
  const out: unknown[] = [];
  collect(value, keys, 0, out);
  return out;
}

const shown = (value: unknown) => (value === null || value === undefined ? UNKNOWN : String(value));

function show(value: unknown, keys: readonly string[]): string {
  // Most paths reach one value through objects alone: walked without collecting a list.
  let current = value;
  for (let at = 0; !Array.isArray(current); at++) {
    if (at === keys.length) return shown(current) || UNKNOWN;
    if (current === null || typeof current !== 'object') return UNKNOWN;
    current = (current as Record<string, unknown>)[keys[at]!];
  }
  return valuesAt(value, keys).map(shown).join(', ') || UNKNOWN;
}

/** A template split once into its text and its placeholders (each path split into its keys). */
type Part = string | { path: string; keys: readonly string[] };

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    parts.push(template.slice(last, match.index));
    const path = match[1]!;
    parts.push({ path, keys: path.split('.') });
    last = match.index + match[0].length;
  }
  parts.push(template.slice(last));
  return parts;
}

function fill(parts: readonly Part[], value: unknown, special?: Record<string, () => string>): string {
  let text = '';
  for (const part of parts) {
    if (typeof part === 'string') text += part;
    else if (special && Object.hasOwn(special, part.path)) text += special[part.path]!();
    else text += show(value, part.keys);
  }
  return text;
}

/**
 * Checks the settings against the data's schema and returns the renderer, or the problems (each naming
 * the setting and the placeholder).
 */
export function compileTextRendering(
  settings: TextRenderingSettings,
  data: JsonSchema,
  where: string,
): { render: RenderText } | { problems: string[] } {
  const problems: string[] = [];
  const listPath = settings.items;
  const list = nonNull(listPath === undefined ? data : schemaAt(data, listPath));
  const hasList = list?.type === 'array';
  if (listPath !== undefined && !hasList)
    problems.push(`${where}.items: "${listPath}" is not a list the operation selects`);
  if (hasList && settings.item === undefined)
    problems.push(`${where}.item: required, to say how one element of the list reads`);
  if (!hasList && (settings.item !== undefined || settings.empty !== undefined))
    problems.push(`${where}: item and empty apply only to data that is, or holds, a list`);

  const check = (key: 'template' | 'item' | 'empty', on: JsonSchema | undefined, special: string[]) => {
    for (const [, path] of (settings[key] ?? '').matchAll(PLACEHOLDER)) {
      if (special.includes(path!)) continue;
      if (!path || !schemaAt(on, path))
        problems.push(`${where}.${key}: {${path}} is not a field the operation selects`);
    }
  };
  // The data itself being a list, the template can only count and list it.
  check('template', listPath === undefined && hasList ? undefined : data, hasList ? ['count', 'items'] : []);
  check('item', nonNull(list?.items), []);
  check('empty', listPath === undefined ? undefined : data, []);
  if (problems.length > 0) return { problems };

  // Parsed once here: rendering runs on every call of the tool, and for every element of its list.
  const template = parse(settings.template);
  const item = parse(settings.item ?? '');
  const empty = settings.empty === undefined ? undefined : parse(settings.empty);
  const listKeys = listPath === undefined ? [] : listPath.split('.');
  const render: RenderText = (value) => {
    if (!hasList) return fill(template, value);
    const present = valuesAt(value, listKeys).filter((e) => e !== undefined && e !== null);
    if (present.length === 0 && empty !== undefined) return fill(empty, value);
    return fill(template, value, {
      count: () => String(present.length),
      items: () => present.map((element) => fill(item, element)).join(', '),
    });
  };
  return { render };
}
