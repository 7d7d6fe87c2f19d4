/**
 * Whether a request's connection closed, known from the moment its session handling began. A handler
 * that awaits the session store (Redis) before it registers its own `close` listener would miss a close
 * that came during the await, and hold its session for good; it asks this watch instead, which is one
 * per response however many handlers ask. A watch also
 * counts the work that outlives the connection (a call runs on after its stream was cut), so a session
 * hold can ask whether its request is still live.
 */
import type { ServerResponse } from 'node:http';

export interface CloseWatch {
  /** The connection closed (the response ended, or the client went away). */
  readonly closed: boolean;
  /** Runs `listener` once the connection closed: at once if it has already. */
  onClose(listener: () => void): void;
  /** Counts work that goes on after a close, until the returned function is called (idempotent). */
  work(): () => void;
  /** Open, or closed with work still running: what a session hold is renewed for. */
  live(): boolean;
}

const watches = new WeakMap<ServerResponse, CloseWatch>();

export function watchClose(res: ServerResponse): CloseWatch {
  const known = watches.get(res);
  if (known) return known;
  // Node sets `destroyed` when it emits 'close': a response that closed before anyone watched it says so.
  let closed = res.destroyed;
  let working = 0;
  const listeners: (() => void)[] = [];
  if (!closed) {
    res.once('close', () => {
      closed = true;
      for (const listener of listeners.splice(0)) listener();
    });
  }
  const watch: CloseWatch = {
    get closed() {
      return closed;
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
    work() {
      working += 1;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        working -= 1;
      };
    },
    live: () => !closed || working > 0,
  };
  watches.set(res, watch);
  return watch;
}
