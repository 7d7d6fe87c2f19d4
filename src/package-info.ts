/** The package's own name and version, read from package.json (one folder up from src/ or dist/). */
import { readFileSync } from 'node:fs';

export function packageInfo(): { name: string; version: string } {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  const { name, version } = JSON.parse(text) as { name: string; version: string };
  return { name, version };
}
