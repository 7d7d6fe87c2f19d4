/**
 * The settings table of docs/configuration.md and .env.example are the documentation of the settings;
 * both are checked against the schema in src/config.ts, so a setting added there without docs (or docs for a
 * setting that is gone) fails here, naming it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES, settingDefaults } from '../src/config.js';

const root = path.resolve(import.meta.dirname, '..');
const settingsPage = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');
const envExample = readFileSync(path.join(root, '.env.example'), 'utf8');

/** The variable names in the first column of the table under "## Settings". */
function settingsTableNames(): string[] {
  const section = settingsPage.split(/^## Settings$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!));
}

/** `NAME=value` lines of .env.example, commented out or not, with the comment line above each. */
function envExampleEntries(): Map<string, { value: string; documented: boolean }> {
  const lines = envExample.split('\n');
  const entries = new Map<string, { value: string; documented: boolean }>();
  lines.forEach((line, i) => {
    const match = /^#?\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!match) return;
    const above = lines[i - 1] ?? '';
    const documented = /^#\s+\S/.test(above) && !/^#\s*[A-Z][A-Z0-9_]*=/.test(above);
    entries.set(match[1]!, {
      value: match[2]!,
      documented: documented || /^#\s*[A-Z][A-Z0-9_]*=/.test(above),
    });
  });
  return entries;
}

const missingMessage = (where: string, names: string[]) =>
  `settings in src/config.ts without a line in ${where}: ${names.join(', ')}`;
const staleMessage = (where: string, names: string[]) =>
  `${where} documents settings src/config.ts does not have: ${names.join(', ')}`;

describe('configuration documentation', () => {
  it('the settings table of docs/configuration.md names every setting of the schema, and no other', () => {
    const documented = new Set(settingsTableNames());
    const missing = SETTING_NAMES.filter((name) => !documented.has(name));
    expect(missing, missingMessage('the settings table of docs/configuration.md', missing)).toEqual([]);
    const stale = [...documented].filter((name) => !(SETTING_NAMES as string[]).includes(name));
    expect(stale, staleMessage('the settings table of docs/configuration.md', stale)).toEqual([]);
  });

  it('.env.example lists every setting of the schema with a comment, and no other', () => {
    const entries = envExampleEntries();
    const missing = SETTING_NAMES.filter((name) => !entries.has(name));
    expect(missing, missingMessage('.env.example', missing)).toEqual([]);
    const stale = [...entries.keys()].filter((name) => !(SETTING_NAMES as string[]).includes(name));
    expect(stale, staleMessage('.env.example', stale)).toEqual([]);
    const undocumented = [...entries].filter(([, entry]) => !entry.documented).map(([name]) => name);
    expect(undocumented, `.env.example lines without a comment above: ${undocumented.join(', ')}`).toEqual(
      [],
    );
  });

  it('.env.example shows each default as the schema has it (paths inside the project excepted)', () => {
    const defaults = settingDefaults();
    const entries = envExampleEntries();
    const wrong = Object.entries(defaults)
      .filter(([, value]) => !(typeof value === 'string' && path.isAbsolute(value)))
      .filter(([name, value]) => entries.get(name)?.value !== String(value))
      .map(([name, value]) => `${name} (schema ${String(value)}, .env.example ${entries.get(name)?.value})`);
    expect(wrong, `.env.example defaults that differ from the schema: ${wrong.join(', ')}`).toEqual([]);
  });
});
