/**
 * The README is the front door and stays small; the reference lives in docs/. Every relative link in
 * the README, CONTRIBUTING.md and docs/ reaches a page that exists, and every `#anchor` a heading of that
 * page, so moving or renaming a section fails here instead of leaving a reader at a dead link.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`),
]
  .filter((page) => page.endsWith('.md'))
  .sort();

/** The text of a page outside its fenced code blocks (a `#` line in a shell block is not a heading). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return !fenced && !line.startsWith('```');
  });
}

/** Heading anchors as GitHub makes them: lower case, punctuation dropped, each space a hyphen. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6} (.+)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

describe('the documentation pages', () => {
  it('the README is at most 10 KB and links into docs/', () => {
    const readme = readFileSync(path.join(root, 'README.md'));
    expect(readme.byteLength).toBeLessThanOrEqual(10 * 1024);
    expect(readme.toString('utf8')).toMatch(/\]\(docs\/[a-z-]+\.md/);
  });

  it('every relative link reaches an existing page and heading', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(path.join(root, page), 'utf8');
      for (const line of prose(text)) {
        for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z]+:/.test(target!)) continue;
          const [file, anchor] = target!.split('#') as [string, string | undefined];
          const linked =
            file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
          if (!existsSync(path.join(root, linked))) {
            broken.push(`${page}: ${target} (no file ${linked})`);
            continue;
          }
          if (anchor !== undefined && !anchorsOf(readFileSync(path.join(root, linked), 'utf8')).has(anchor))
            broken.push(`${page}: ${target} (no heading #${anchor} in ${linked})`);
        }
      }
    }
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('code and tests cite the docs by page and section, never an issue number or a file outside the repository', () => {
    const dangling = new RegExp(['issue [0-9]', 'SPEC section', 'STYLE habit', '\\(SPEC\\)'].join('|'));
    const found: string[] = [];
    for (const folder of ['src', 'test', 'bench', 'scripts']) {
      for (const file of readdirSync(path.join(root, folder), { recursive: true }) as string[]) {
        if (!/\.(ts|mjs|js)$/.test(file) || `${folder}/${file}` === 'test/docs-pages.unit.test.ts') continue;
        const lines = readFileSync(path.join(root, folder, file), 'utf8').split('\n');
        lines.forEach((line, index) => {
          if (dangling.test(line)) found.push(`${folder}/${file}:${index + 1}: ${line.trim()}`);
        });
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  });
});
