/**
 * Per-tool settings from operations/tools.json: one typed structure that rejects unknown keys and
 * unknown tools, so a typo fails at boot instead of silently doing nothing. Each problem names the
 * file and the line it is on.
 */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { textRenderingSchema } from './text-rendering.js';

const toolSettingsSchema = z
  .object({
    /** Overrides of the annotations derived from the operation type. */
    annotations: z
      .object({
        readOnlyHint: z.boolean().optional(),
        destructiveHint: z.boolean().optional(),
        idempotentHint: z.boolean().optional(),
        openWorldHint: z.boolean().optional(),
      })
      .strict()
      .default({}),
    /** Treat data-with-errors as success (isError false); by default a partial result is an error. */
    allowPartialData: z.boolean().default(false),
    /** Deadline for one call in milliseconds; the server default when omitted. */
    timeoutMs: z.number().int().min(100).max(120000).optional(),
    /** Total number of progress steps the tool reports (its operation reports the ones before "done"). */
    progressSteps: z.number().int().min(1).max(20).optional(),
    /**
     * Whether a call asks the user before acting (src/mcp/confirm-call.ts): `always`, or `never`. By
     * default a tool annotated destructive asks and any other does not.
     */
    confirm: z.enum(['always', 'never']).optional(),
    /** A short text rendering of a successful result, in place of the serialized JSON (text-rendering.ts). */
    text: textRenderingSchema.optional(),
    /**
     * The MCP App (a `ui://` resource the server serves) a host may show this tool's results in: listed
     * as the tool's `_meta.ui.resourceUri` (docs/mcp.md, The movie card app).
     */
    app: z
      .string()
      .regex(/^ui:\/\/[a-z0-9-]+\/[a-z0-9-]+$/, 'must be a ui:// resource URI such as ui://moviedb/card')
      .optional(),
  })
  .strict();

export type ToolSettings = z.infer<typeof toolSettingsSchema>;

/** The 1-based line of a character offset. */
function lineAt(source: string, offset: number): number {
  return source.slice(0, Math.max(0, offset)).split('\n').length;
}

/** The line of the key a settings path ends at, found key by key from the top (the file is small). */
function lineOfPath(source: string, keys: readonly PropertyKey[]): number {
  let offset = 0;
  for (const key of keys) {
    if (typeof key !== 'string') continue;
    const at = source.indexOf(JSON.stringify(key), offset);
    if (at < 0) break;
    offset = at;
  }
  return lineAt(source, offset);
}

const TOOL_SETTINGS_FILE = 'tools.json';

export interface LoadedToolSettings {
  settings: Record<string, ToolSettings>;
  /** `tools.json:<line>: ...` entries; empty when the file is valid (or absent). */
  problems: string[];
  /** Where a settings path is written, as `tools.json:<line>`, for problems found later. */
  locate(path: readonly string[]): string;
}

/** Reads `tools.json` in the operations folder; a missing file means no settings. */
export function loadToolSettings(dir: string): LoadedToolSettings {
  const file = path.join(dir, TOOL_SETTINGS_FILE);
  const name = TOOL_SETTINGS_FILE;
  if (!existsSync(file)) return { settings: {}, problems: [], locate: () => name };
  let source = '';
  const locate = (keys: readonly PropertyKey[]) => `${name}:${lineOfPath(source, keys)}`;
  let raw: unknown;
  try {
    source = readFileSync(file, 'utf8');
    raw = JSON.parse(source);
  } catch (error) {
    const message = (error as Error).message;
    // Node names the offending position, except for a file that ends too soon: its last line.
    const position =
      /at position (\d+)/.exec(message)?.[1] ?? (/end of JSON/.test(message) ? source.length : undefined);
    const where = position !== undefined ? `:${lineAt(source, Number(position))}` : '';
    return { settings: {}, problems: [`${name}${where}: not valid JSON (${message})`], locate };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { settings: {}, problems: [`${name}:1: must be an object of tool names to settings`], locate };
  // Tool by tool, so one tool's mistake does not hide another's (a text template is checked later).
  const settings: Record<string, ToolSettings> = {};
  const problems: string[] = [];
  for (const [tool, value] of Object.entries(raw)) {
    const parsed = toolSettingsSchema.safeParse(value);
    if (parsed.success) settings[tool] = parsed.data;
    for (const issue of parsed.error?.issues ?? []) {
      const at = [tool, ...issue.path];
      const keys = issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [];
      problems.push(`${locate([...at, ...keys])}: ${at.join('.')}: ${issue.message}`);
    }
  }
  return { settings, problems, locate };
}

export function defaultToolSettings(): ToolSettings {
  return toolSettingsSchema.parse({});
}
