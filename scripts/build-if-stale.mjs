#!/usr/bin/env node
// Compiles src/ into dist/ only when dist/ is missing or older than a source file, so `npm start` does
// not pay for tsc (about 10 s) on every start. Run by `prepare` (at install) and `prestart`.
// Compares file times only (a few milliseconds), never runs the type checker to decide.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => path.join(root, p));
const output = path.join(root, 'dist', 'main.js');

if (!existsSync(path.join(root, 'src'))) {
  // An install without the sources (a Docker layer that copies package.json first): nothing to build yet.
  process.exit(0);
}

function newest(file) {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(file).map((entry) => newest(path.join(file, entry))));
}

// A bin that is not executable (built before scripts/build.mjs set the bit) counts as not built.
const bin = existsSync(output) ? statSync(output) : undefined;
const built = bin && bin.mode & 0o111 ? bin.mtimeMs : 0;
const changed = Math.max(...inputs.filter((p) => existsSync(p)).map(newest));
if (built >= changed) process.exit(0);

console.error(
  built === 0 ? 'Building dist/ (first run)…' : 'Sources changed since the last build: rebuilding dist/…',
);
const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
process.exit(result.status ?? 1);
