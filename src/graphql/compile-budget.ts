/**
 * How many fields one principal (a signed-in subject, else a client address as the rate limits count
 * it) may have compiled per minute, and the whole process ten times that. Compiling costs tens of
 * microseconds of event loop per field, so what clients can make the server compile is bounded by
 * budget, however many documents they send; past it their documents run by graphql-js, which answers
 * the same. Kept in process, not in the shared rate-limit store: the cost it bounds is this process's
 * CPU, and it is asked synchronously on the execution path.
 */
import { LRUCache } from 'lru-cache';

const WINDOW_MS = 60_000;
/** Principals remembered at once; one pushed out starts a fresh window, which the process budget caps. */
const PRINCIPALS = 10_000;
const PROCESS_SHARE = 10;

export interface CompileBudget {
  /** Takes `fields` from the principal's and the process's budget; false (and takes nothing) when either is short. */
  spend(principal: string, fields: number): boolean;
}

interface Window {
  startedAt: number;
  spent: number;
}

export function createCompileBudget(options: {
  fieldsPerMinute: number;
  /** Milliseconds; injected by tests. */
  now?: () => number;
}): CompileBudget {
  const now = options.now ?? (() => performance.now());
  const windows = new LRUCache<string, Window>({ max: PRINCIPALS });
  const processWindow: Window = { startedAt: -Infinity, spent: 0 };
  const current = (window: Window, at: number): Window => {
    if (at - window.startedAt >= WINDOW_MS) {
      window.startedAt = at;
      window.spent = 0;
    }
    return window;
  };
  return {
    spend(principal, fields) {
      const at = now();
      let own = windows.get(principal);
      if (!own) windows.set(principal, (own = { startedAt: at, spent: 0 }));
      current(own, at);
      current(processWindow, at);
      if (own.spent + fields > options.fieldsPerMinute) return false;
      if (processWindow.spent + fields > options.fieldsPerMinute * PROCESS_SHARE) return false;
      own.spent += fields;
      processWindow.spent += fields;
      return true;
    },
  };
}
