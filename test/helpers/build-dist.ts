/**
 * Vitest global setup: builds dist/ when it is missing or older than a source (scripts/build-if-stale.mjs,
 * a few milliseconds when it is fresh), because the command-line tests run the built dist/main.js, as
 * `npx moviedb-mcp` does. So `npm test` after an edit of src/ tests the edit, and a fresh clone needs
 * only `npm ci`.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/build-if-stale.mjs');

export default function setup(): void {
  const result = spawnSync(process.execPath, [SCRIPT], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`building dist/ failed (exit ${result.status}): see tsc above`);
}
