/**
 * `prepare` and `npm start` compile only when dist/ is missing or older than a source: run the real
 * script and the real tsc on a one-file project in a scratch folder.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(import.meta.dirname, '../..');

function project(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'moviedb-build-'));
  mkdirSync(path.join(dir, 'scripts'));
  for (const script of ['build-if-stale.mjs', 'build.mjs'])
    cpSync(path.join(repo, 'scripts', script), path.join(dir, 'scripts', script));
  symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(
    path.join(dir, 'tsconfig.build.json'),
    '{"compilerOptions":{"rootDir":"src","outDir":"dist","module":"NodeNext","target":"ES2022","types":[]},"include":["src"]}',
  );
  return dir;
}

function build(dir: string) {
  return spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: dir, encoding: 'utf8' });
}

describe('scripts/build-if-stale.mjs', () => {
  it('builds when dist/ is missing, skips when it is fresh, rebuilds when a source is newer', () => {
    const dir = project();
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src/main.ts'), 'export const answer: number = 42;\n');

    const first = build(dir);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toContain('Building dist/ (first run)');
    // The bin is executable: npx runs the file itself.
    expect(statSync(path.join(dir, 'dist/main.js')).mode & 0o111).toBe(0o111);
    const builtAt = statSync(path.join(dir, 'dist/main.js')).mtimeMs;

    const second = build(dir);
    expect(second.status).toBe(0);
    expect(second.stderr).toBe('');
    expect(statSync(path.join(dir, 'dist/main.js')).mtimeMs).toBe(builtAt);

    // A source edited after the build (its time set ahead, so the test does not depend on clock resolution).
    const later = new Date(builtAt + 60_000);
    utimesSync(path.join(dir, 'src/main.ts'), later, later);
    const third = build(dir);
    expect(third.status, third.stderr).toBe(0);
    expect(third.stderr).toContain('Sources changed since the last build');
    expect(statSync(path.join(dir, 'dist/main.js')).mtimeMs).toBeGreaterThan(builtAt);
  }, 60_000);

  it('builds again when the bin is not executable (built by tsc alone)', () => {
    const dir = project();
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src/main.ts'), 'export const answer: number = 42;\n');
    expect(build(dir).status).toBe(0);
    chmodSync(path.join(dir, 'dist/main.js'), 0o644);
    const again = build(dir);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain('Building dist/');
    expect(statSync(path.join(dir, 'dist/main.js')).mode & 0o111).toBe(0o111);
  }, 60_000);

  it('does nothing without src/ (an install step that runs before the sources are copied)', () => {
    const result = build(project());
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
  });
});
