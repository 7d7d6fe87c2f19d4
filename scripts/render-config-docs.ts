/**
 * Renders the settings part of docs/configuration.md and the whole of .env.example from the configuration
 * schema (src/config.ts), so neither can drift from it: `npm run config:docs` writes them, and
 * test/config-docs.unit.test.ts fails when the committed files differ from what this renders.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import prettier from 'prettier';
import { SETTINGS } from '../src/config.js';
import { writtenDefault, type SettingEntry } from '../src/config/setting.js';

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..');
export const CONFIGURATION_PAGE = path.join(PROJECT_ROOT, 'docs', 'configuration.md');
export const ENV_EXAMPLE = path.join(PROJECT_ROOT, '.env.example');

export const BEGIN_MARKER = '<!-- settings:begin (generated from src/config.ts by `npm run config:docs`) -->';
export const END_MARKER = '<!-- settings:end -->';

const ENV_EXAMPLE_HEADER = `# moviedb-mcp settings. Copy this file to .env (git ignores it) and uncomment what you change.
# \`npm start\`, \`npx moviedb-mcp <command>\` and docker compose read .env; a variable already set in the
# environment wins over the file. Every line shows the default. Values are taken literally: do not quote
# them unless the value itself has a # or surrounding spaces, and then use single quotes. A name that is
# not a setting stops the start (exit 78) naming the closest one.
# Generated from src/config.ts by \`npm run config:docs\`: edit the schema, not this file.
`;

/** The settings grouped by section, in declaration order. */
function bySection(): { title: string; note?: string; settings: SettingEntry[] }[] {
  const sections: { title: string; note?: string; settings: SettingEntry[] }[] = [];
  for (const entry of SETTINGS) {
    let last = sections.at(-1);
    if (last?.title !== entry.section) {
      last = { title: entry.section, note: entry.sectionNote, settings: [] };
      sections.push(last);
    }
    last.settings.push(entry);
  }
  return sections;
}

function shownDefault(entry: SettingEntry): string {
  if (entry.shownDefault) return entry.shownDefault;
  const value = writtenDefault(entry);
  return value === undefined ? '(unset)' : `\`${String(value)}\``;
}

function meaning(entry: SettingEntry): string {
  return entry.see
    ? `${entry.description} See [${entry.see.split('#')[0]}](${entry.see}).`
    : entry.description;
}

/** The generated part of docs/configuration.md (between the markers), before formatting. */
export function renderSettingsSection(): string {
  const tables = bySection().map(({ title, note, settings }) =>
    [
      `### ${title}`,
      '',
      ...(note ? [note, ''] : []),
      '| variable | default | meaning |',
      '| --- | --- | --- |',
      ...settings.map(
        (entry) => `| \`${entry.env}\` | ${shownDefault(entry)} | ${meaning(entry).replaceAll('|', '\\|')} |`,
      ),
    ].join('\n'),
  );
  return [BEGIN_MARKER, '', ...tables.flatMap((table) => [table, '']), END_MARKER].join('\n');
}

/** Words wrapped into `# ` comment lines of at most `width` characters. */
function comment(text: string, width = 106): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length > 1 && line.length + 1 + word.length > width) {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/** The whole of .env.example: every setting commented out with its default, so the file sets nothing. */
export function renderEnvExample(): string {
  const sections = bySection().map(({ title, note, settings }) =>
    [
      `# ---- ${title}`,
      ...(note ? comment(note) : []),
      ...settings.flatMap((entry) => {
        const value = entry.example ?? (entry.shownDefault ? '' : (writtenDefault(entry) ?? ''));
        return [...comment(entry.description), `# ${entry.env}=${String(value)}`];
      }),
    ].join('\n'),
  );
  return `${ENV_EXAMPLE_HEADER}\n${sections.join('\n\n')}\n`;
}

/** docs/configuration.md as it must be: the page as written, its settings part rendered and formatted. */
export async function renderConfigurationPage(
  page = readFileSync(CONFIGURATION_PAGE, 'utf8'),
): Promise<string> {
  const begin = page.indexOf(BEGIN_MARKER);
  const end = page.indexOf(END_MARKER);
  if (begin < 0 || end < begin) {
    throw new Error(
      `${CONFIGURATION_PAGE} needs the generated part's markers:\n${BEGIN_MARKER}\n${END_MARKER}`,
    );
  }
  const spliced = page.slice(0, begin) + renderSettingsSection() + page.slice(end + END_MARKER.length);
  const options = await prettier.resolveConfig(CONFIGURATION_PAGE);
  return prettier.format(spliced, { ...options, filepath: CONFIGURATION_PAGE });
}
