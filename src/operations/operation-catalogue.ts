/**
 * The catalogue the server runs: the loaded operations, and (when watching, OPERATIONS_WATCH) their
 * replacement when a file in the operations folder is added, changed or removed. A change is loaded
 * and validated in full, exactly as at start-up; a valid catalogue replaces the old one in one
 * assignment, so every request reads either the old or the new, never a mixture, and a call already
 * running finishes on the operation it started with. An invalid one is logged with file:line and the
 * old catalogue keeps running. A valid one can still be refused by `approve` (in production, one whose
 * tools/list differs from the tool lock: src/mcp/tool-lock.ts), logged the same way with its reasons.
 * Listeners hear of each swap (sessions tell 2025 clients with notifications/tools/list_changed).
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/server';
import type { Identity } from '../auth/identity.js';
import type { Executor } from '../graphql/executor.js';
import type { Logger } from '../logger.js';
import { loadOperations, OperationCatalogueError, type CuratedOperation } from './load-operations.js';
import type { CatalogueTool, SchemaTool } from './schema-tool.js';
import { sizeOf } from './tool-size.js';
import { isToolVisibleTo } from './is-tool-visible-to.js';

/** One loaded catalogue, immutable: a reload builds another. */
export interface Catalogue {
  readonly operations: readonly CuratedOperation[];
  /** The curated operations and the schema tools, by tool name. */
  readonly byName: ReadonlyMap<string, CatalogueTool>;
  /** Every tools/list entry. */
  readonly tools: readonly Tool[];
  /** The entries of the tools this caller can call (its role and scopes), computed once per kind of caller. */
  toolsFor(viewer: Identity | null): readonly Tool[];
}

type CatalogueListener = (catalogue: Catalogue, previous: Catalogue) => void;

export interface OperationCatalogue {
  /** The catalogue now. Read it once per request, so one request sees one catalogue. */
  current(): Catalogue;
  /** Calls `listener` after every swap, with the new and the old catalogue; returns the function that stops it. */
  onCatalogueChanged(listener: CatalogueListener): () => void;
  /** Whether the folder is watched: only then can the list change, and `listChanged` be advertised. */
  readonly watching: boolean;
  /** Stops watching. */
  close(): void;
}

export interface OperationCatalogueOptions {
  executor: Executor;
  dir: string;
  logger: Logger;
  watch: boolean;
  /**
   * Asked about each reloaded catalogue before it replaces the running one: the reasons to refuse it
   * (one line each), or nothing to accept it. Start-up does not ask.
   */
  approve?: (next: Catalogue) => Promise<readonly string[] | undefined>;
  /** Listed and called beside the operations, in every catalogue loaded (MCP_SCHEMA_TOOLS). */
  schemaTools?: readonly SchemaTool[];
}

/** Quiet time after the last file event before reloading: an editor's save is several events. */
export const RELOAD_DEBOUNCE_MS = 150;

/** The files a catalogue is loaded from, and the lock a reload may be approved against. */
const CATALOGUE_FILE = /\.graphql$|^tools\.json$|^tools\.lock\.json$/;

export function createCatalogue(
  operations: readonly CuratedOperation[],
  schemaTools: readonly SchemaTool[] = [],
): Catalogue {
  const entries: readonly CatalogueTool[] = [...operations, ...schemaTools];
  const tools = entries.map((entry) => entry.tool);
  const byAccess = new Map<string, readonly Tool[]>();
  return {
    operations,
    byName: new Map(entries.map((entry) => [entry.toolName, entry])),
    tools,
    toolsFor(viewer) {
      // What decides visibility is the role and the scopes, so callers alike share one list.
      const key = viewer ? `${viewer.role}\u0000${[...viewer.scopes].sort().join(' ')}` : '';
      let visible = byAccess.get(key);
      if (!visible) {
        visible = entries.filter((entry) => isToolVisibleTo(entry, viewer)).map((entry) => entry.tool);
        byAccess.set(key, visible);
      }
      return visible;
    },
  };
}

/** One line: each tool's estimated tokens in tools/list, and the total. */
function logSizes(logger: Logger, catalogue: Catalogue, message: string): void {
  const tools = Object.fromEntries(catalogue.tools.map((tool) => [tool.name, sizeOf(tool).tokens]));
  logger.info({ tools, totalTokens: sizeOf({ tools: catalogue.tools }).tokens }, message);
}

/** Loads the catalogue (throwing OperationCatalogueError, as start-up must) and watches it if asked. */
export function createOperationCatalogue(options: OperationCatalogueOptions): OperationCatalogue {
  const { executor, dir, logger, schemaTools } = options;
  let current = createCatalogue(loadOperations(executor, dir), schemaTools);
  logSizes(logger, current, 'operation catalogue loaded');
  const listeners = new Set<CatalogueListener>();

  const refuse = (details: Record<string, unknown>) =>
    logger.error({ ...details, dir }, 'operation catalogue not reloaded, the running one stays');

  const reloadOnce = async () => {
    let next: Catalogue;
    try {
      next = createCatalogue(loadOperations(executor, dir), schemaTools);
    } catch (error) {
      // Each problem is `file:line: message`, as at start-up.
      refuse(error instanceof OperationCatalogueError ? { problems: error.problems } : { err: error });
      return;
    }
    try {
      const refusal = await options.approve?.(next);
      if (refusal) {
        refuse({ reasons: refusal });
        return;
      }
    } catch (error) {
      refuse({ err: error });
      return;
    }
    const previous = current;
    current = next;
    logSizes(logger, current, 'operation catalogue reloaded');
    for (const listener of listeners) {
      try {
        listener(current, previous);
      } catch (error) {
        logger.error({ err: error }, 'a catalogue listener failed');
      }
    }
  };
  // One reload at a time, in the order the changes came: approval is asynchronous, and a slower earlier
  // reload must not replace a later one.
  let reloading = Promise.resolve();
  const reload = () => {
    reloading = reloading.then(reloadOnce);
  };

  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  if (options.watch) {
    watcher = watch(dir, (_event, file) => {
      // Only what the catalogue is made of (an editor's swap and backup files are not); a platform that
      // does not name the file gets a reload anyway.
      if (file && !CATALOGUE_FILE.test(file)) {
        // At debug: the answer to "why did my edit not reload?" without noise from every swap file.
        logger.debug({ file }, 'operations folder change ignored: not a catalogue file');
        return;
      }
      clearTimeout(timer);
      timer = setTimeout(reload, RELOAD_DEBOUNCE_MS);
    });
    // A folder that disappears or cannot be read any more: the running catalogue stays, watching ends.
    watcher.on('error', (error) =>
      logger.error({ err: error, dir }, 'watching the operations folder failed'),
    );
    watcher.unref();
  }

  return {
    current: () => current,
    onCatalogueChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    watching: options.watch,
    close() {
      clearTimeout(timer);
      watcher?.close();
      listeners.clear();
    },
  };
}
