/**
 * The building blocks of the configuration schema: a setting is a zod schema tagged with the environment
 * variable it is read from and its documentation, a section is a zod object tagged with a title. The tags
 * live in registries beside the schemas, so the one schema in src/config.ts is at once the parser, the
 * `Config` type and the source of docs/configuration.md and .env.example.
 */
import { z } from 'zod';

export interface SettingDoc {
  /** What it does, in a sentence or two (Markdown: backticks only, it is also a comment in .env.example). */
  description: string;
  /** The default in words, where the schema's default is computed or a path inside the project. */
  shownDefault?: string;
  /** A value to show in .env.example instead of the default (which then stays commented out). */
  example?: string;
  /** A page of docs/ to link from the settings table (`mcp.md#the-lean-path`). */
  see?: string;
}

interface SettingTag extends SettingDoc {
  env: string;
}

const settingTags = z.registry<SettingTag>();
const sectionTags = z.registry<{ title: string; note?: string }>();

declare const settingName: unique symbol;
/** A schema that carries its variable's name in its type, so `Env` can be derived from the schema. */
export type Setting<N extends string, T extends z.ZodType> = T & { readonly [settingName]: N };

/**
 * Declares one setting: `schema` parses the variable's text (validation and default as written);
 * derivations (seconds to milliseconds, a list split) go after it with `.transform`.
 */
export function setting<const N extends string, T extends z.ZodType>(
  env: N,
  schema: T,
  doc: string | SettingDoc,
): Setting<N, T> {
  // A schema instance is one setting: a shared instance would give two variables one tag.
  if (settingTags.has(schema)) throw new Error(`${env}: give each setting its own schema instance`);
  settingTags.add(schema, { env, ...(typeof doc === 'string' ? { description: doc } : doc) });
  return schema as Setting<N, T>;
}

/** A titled group of settings: a section of the generated pages and an object of `Config`. */
export function section<T extends z.ZodObject>(title: string, schema: T, note?: string): T {
  sectionTags.add(schema, { title, ...(note ? { note } : {}) });
  return schema;
}

/** The variable names declared anywhere in a schema, as a type. */
export type SettingNames<S> = S extends { readonly [settingName]: infer N }
  ? N
  : S extends z.ZodPipe<infer In, z.ZodType>
    ? SettingNames<In>
    : S extends z.ZodObject<infer Shape>
      ? { [K in keyof Shape]: SettingNames<Shape[K]> }[keyof Shape]
      : never;

export interface SettingEntry extends SettingTag {
  /** Where its parsed value lands in the schema's input (before any object's transform). */
  path: string[];
  /** The section it is documented under. */
  section: string;
  sectionNote?: string;
  /** The schema as declared with `setting`: its default is the default as written. */
  schema: z.ZodType;
}

/** Every setting of a schema in declaration order; throws on a field that is not a setting or a section. */
export function settingsOf(
  schema: z.ZodType,
  path: string[] = [],
  within: { title: string; note?: string } = { title: '' },
): SettingEntry[] {
  const tag = settingTags.get(schema);
  if (tag) return [{ ...tag, path, section: within.title, sectionNote: within.note, schema }];
  if (schema instanceof z.ZodPipe) return settingsOf(schema.in as z.ZodType, path, within);
  if (schema instanceof z.ZodObject) {
    const here = sectionTags.get(schema) ?? within;
    return Object.entries(schema.shape).flatMap(([key, field]) =>
      settingsOf(field as z.ZodType, [...path, key], here),
    );
  }
  throw new Error(`${path.join('.')}: declare it with setting() so it has a variable and docs`);
}

/** The default as written (before transforms), or undefined for a setting without one. */
export function writtenDefault(entry: SettingEntry): unknown {
  const parsed = entry.schema.safeParse(undefined);
  return parsed.success ? parsed.data : undefined;
}

/** `true`, `false`, `1` or `0`. */
export const bool = () =>
  z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
export const int = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
export const seconds = (value: number) => value * 1000;
/** A comma-separated list, items trimmed, empty ones dropped. */
export const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
