/**
 * The tool lock: `operations/tools.lock.json`, the approved tools/list of each locked revision, written by
 * `moviedb-mcp tools --lock` and reviewed like code. Per tool it keeps every listed field as listed
 * (description, annotations, title, _meta, ...) except the input and output schemas, which it keeps as a
 * hash of their canonical JSON. `moviedb-mcp check` (and so CI) fails when the catalogue's list differs
 * from it, and with NODE_ENV=production a start-up or a hot reload that differs is refused: a tool list that changes
 * under its clients (a new description telling an agent to do something else, a schema that asks for
 * more) cannot ship unreviewed. See docs/authoring-tools.md, The tool lock.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/server';
import { canonicalJson } from '../canonical-json.js';
import { FileAccessError } from '../file-access-error.js';
import type { Logger } from '../logger.js';
import { createCatalogue, type Catalogue } from '../operations/operation-catalogue.js';
import { listedTools, LOCKED_REVISIONS } from './listed-tools.js';

export const LOCK_FILE = 'tools.lock.json';

/** One tool as the lock keeps it: its listed fields, the schemas as `sha256:<hex>`. */
type LockedTool = Record<string, unknown>;

export interface ToolLock {
  /** Per revision, per tool name. */
  revisions: Record<string, Record<string, LockedTool>>;
}

/** One difference between the catalogue and the lock. */
export interface LockChange {
  tool: string;
  /** The field that differs; absent when the whole tool is added or removed. */
  field?: string;
  change: 'added' | 'removed' | 'changed';
  /** The revisions it differs on. */
  revisions: string[];
  locked?: unknown;
  listed?: unknown;
}

const HASHED = new Set(['inputSchema', 'outputSchema']);

function hashOf(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}

function lockedTool(tool: Tool): LockedTool {
  const entry: LockedTool = {};
  for (const key of Object.keys(tool).sort()) {
    if (key === 'name') continue;
    const value = (tool as Record<string, unknown>)[key];
    entry[key] = HASHED.has(key) ? hashOf(value) : value;
  }
  return entry;
}

/**
 * Tool names in code-unit order, not localeCompare's: the same on every machine whatever its locale, and
 * it keeps the server's start from loading ICU's collation data (2 MiB of the binary paged in, resident).
 */
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The lock of the catalogue as tools/list lists it on each locked revision. */
export async function lockOf(catalogue: Catalogue, logger: Logger): Promise<ToolLock> {
  // The lock approves what operations/ says; the schema tools (MCP_SCHEMA_TOOLS) are the server's own
  // code, the same in every deployment, so turning them on is not a drift to refuse.
  const listed = await listedTools(createCatalogue(catalogue.operations), logger);
  const revisions: ToolLock['revisions'] = {};
  for (const revision of LOCKED_REVISIONS) {
    const tools = [...listed[revision]].sort((a, b) => byCodeUnits(a.name, b.name));
    revisions[revision] = Object.fromEntries(tools.map((tool) => [tool.name, lockedTool(tool)]));
  }
  return { revisions };
}

export class ToolLockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolLockError';
  }
}

/** The lock in `dir`, or undefined when there is none; a file that is not a lock is a ToolLockError. */
function readLock(dir: string): ToolLock | undefined {
  const file = path.join(dir, LOCK_FILE);
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new FileAccessError('read', file, error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ToolLockError(
      `${LOCK_FILE} is not JSON (${(error as Error).message}): run moviedb-mcp tools --lock`,
    );
  }
  const revisions = (parsed as { revisions?: unknown } | null)?.revisions;
  if (typeof revisions !== 'object' || revisions === null || Array.isArray(revisions)) {
    throw new ToolLockError(`${LOCK_FILE} has no "revisions" object: run moviedb-mcp tools --lock`);
  }
  return parsed as ToolLock;
}

export function writeLock(dir: string, lock: ToolLock): string {
  const file = path.join(dir, LOCK_FILE);
  try {
    writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  } catch (error) {
    throw new FileAccessError('write', file, error);
  }
  return file;
}

/**
 * What differs between the lock and the catalogue's lock, one change per tool and field, the revisions
 * it differs on merged; no lock at all means every tool is added.
 */
function diffLock(locked: ToolLock | undefined, current: ToolLock): LockChange[] {
  const changes = new Map<string, LockChange>();
  const note = (revision: string, change: Omit<LockChange, 'revisions'>) => {
    const key = `${change.tool}\u0000${change.field ?? ''}\u0000${change.change}`;
    const known = changes.get(key);
    if (known) known.revisions.push(revision);
    else changes.set(key, { ...change, revisions: [revision] });
  };
  const revisions = new Set([...Object.keys(locked?.revisions ?? {}), ...Object.keys(current.revisions)]);
  for (const revision of revisions) {
    const before = locked?.revisions[revision] ?? {};
    const after = current.revisions[revision] ?? {};
    for (const tool of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const [was, is] = [before[tool], after[tool]];
      if (!was) {
        note(revision, { tool, change: 'added' });
        continue;
      }
      if (!is) {
        note(revision, { tool, change: 'removed' });
        continue;
      }
      for (const field of new Set([...Object.keys(was), ...Object.keys(is)])) {
        if (canonicalJson(was[field]) === canonicalJson(is[field])) continue;
        const change = !(field in was) ? 'added' : !(field in is) ? 'removed' : 'changed';
        note(revision, { tool, field, change, locked: was[field], listed: is[field] });
      }
    }
  }
  return [...changes.values()].sort((a, b) => byCodeUnits(a.tool, b.tool));
}

/** A description is shown whole (the change may be anywhere in it); a long other value is cut. */
const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'nothing';
  return typeof value === 'string' || text.length <= 120 ? text : `${text.slice(0, 117)}...`;
};

/** One line a change, as `check` prints it and a refused reload logs it. */
function describeChange(change: LockChange): string {
  const where =
    change.revisions.length === LOCKED_REVISIONS.length ? '' : ` (on ${change.revisions.join(', ')})`;
  if (!change.field) {
    return `${change.tool}: ${change.change === 'added' ? 'not in the lock' : 'in the lock but not in the catalogue'}${where}`;
  }
  return `${change.tool}: ${change.field} ${change.change}${where}: locked ${shown(change.locked)}, listed ${shown(change.listed)}`;
}

/** How the catalogue differs from the lock in `dir` (all of it when there is no lock). */
async function lockChanges(catalogue: Catalogue, dir: string, logger: Logger): Promise<LockChange[]> {
  return diffLock(readLock(dir), await lockOf(catalogue, logger));
}

/**
 * Throws a ToolLockError naming each tool and field in which the catalogue's tools/list differs from
 * the lock in `dir`, and what to do: `moviedb-mcp check` and a production start-up refuse the same way.
 */
export async function assertMatchesLock(catalogue: Catalogue, dir: string, logger: Logger): Promise<void> {
  const changes = await lockChanges(catalogue, dir, logger);
  if (changes.length === 0) return;
  throw new ToolLockError(
    `The tool list differs from ${LOCK_FILE} in ${dir}:\n` +
      changes.map((change) => `  - ${describeChange(change)}`).join('\n') +
      '\nIf these changes are meant, run moviedb-mcp tools --lock and commit the lock with them.',
  );
}

/**
 * The approval a production hot reload needs (operation-catalogue.ts `approve`): a catalogue whose
 * tools/list differs from the lock in `dir`, read again at each reload, is refused with each change.
 */
export function approveByLock(dir: string, logger: Logger) {
  return async (next: Catalogue): Promise<string[] | undefined> => {
    const changes = await lockChanges(next, dir, logger);
    return changes.length > 0 ? changes.map(describeChange) : undefined;
  };
}
