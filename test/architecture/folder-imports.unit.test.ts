/**
 * No two folders of src/ import each other, directly or round a longer loop: the layers in
 * docs/architecture.md ("Layers and imports") only hold while the folder graph has no cycle. Files at
 * the top of src/ count as folders of their own (config.ts, errors.ts, logger.ts are leaves).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
/** Static imports and re-exports, type-only ones included (a type cycle still ties the folders). */
const IMPORT =
  /(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The folder a file belongs to: its first path segment under src/, or the file itself at the top. */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? `${parts[0]}/` : parts[0]!.replace(/\.ts$/, '');
}

/** The src/ files each file imports. */
function fileImports(): Map<string, string[]> {
  const imports = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const targets = [...readFileSync(file, 'utf8').matchAll(IMPORT)]
      .map((match) => resolve(dirname(file), (match[1] ?? match[2])!.replace(/\.js$/, '.ts')))
      .filter((target) => target.startsWith(SRC + sep));
    imports.set(file, targets);
  }
  return imports;
}

/**
 * Folder → the folders its files import. A file that imports nothing of src/ (a pure helper such as
 * http/url-host.ts, which config/ uses) closes no loop, so importing it adds no edge.
 */
function folderGraph(): Map<string, Set<string>> {
  const imports = fileImports();
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of imports) {
    const from = folderOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of targets) {
      const to = folderOf(target);
      if (to !== from && (imports.get(target)?.length ?? 0) > 0) edges.add(to);
    }
  }
  return graph;
}

/** Every cycle of the graph, as the strongly connected components with more than one folder (Tarjan). */
function folderCycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

describe('imports between the folders of src/', () => {
  it('form no cycle', () => {
    const graph = folderGraph();
    const cycles = folderCycles(graph);
    const explain = cycles.map((cycle) =>
      cycle
        .map(
          (folder) => `${folder} → ${[...graph.get(folder)!].filter((to) => cycle.includes(to)).join(', ')}`,
        )
        .join('; '),
    );
    expect(explain).toEqual([]);
  });

  it('the check finds a cycle when there is one', () => {
    const graph = new Map([
      ['a/', new Set(['b/'])],
      ['b/', new Set(['c/'])],
      ['c/', new Set(['a/'])],
      ['d/', new Set(['a/'])],
    ]);
    expect(folderCycles(graph)).toEqual([['a/', 'b/', 'c/']]);
  });
});
