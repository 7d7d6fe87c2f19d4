/**
 * Per-tool settings from operations/tools.json: one typed structure that rejects unknown keys and
 * unknown tools, so a typo fails at boot instead of silently doing nothing.
 */
import { readFileSync, existsSync } from 'node:fs';
import { z } from 'zod';

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
  })
  .strict();

export type ToolSettings = z.infer<typeof toolSettingsSchema>;

const fileSchema = z.record(z.string(), toolSettingsSchema);

export function loadToolSettings(file: string): {
  settings: Record<string, ToolSettings>;
  problems: string[];
} {
  if (!existsSync(file)) return { settings: {}, problems: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { settings: {}, problems: [`${file}: not valid JSON (${(error as Error).message})`] };
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      settings: {},
      problems: parsed.error.issues.map((i) => `${file}: ${i.path.join('.')}: ${i.message}`),
    };
  }
  return { settings: parsed.data, problems: [] };
}

export function defaultToolSettings(): ToolSettings {
  return toolSettingsSchema.parse({});
}
