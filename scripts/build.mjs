#!/usr/bin/env node
// Compiles src/ into dist/ (`npm run build`, and scripts/build-if-stale.mjs when a source changed), then
// marks dist/main.js, the package's bin, executable: tsc writes a new file without the bit, and `npx
// moviedb-mcp` runs the bin's file itself. npm sets the bit only when npx first links the project (its
// link is cached by path), so after dist/ was removed and rebuilt the command failed: Permission denied.
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (result.status === 0) chmodSync(path.join(root, 'dist', 'main.js'), 0o755);
process.exit(result.status ?? 1);
