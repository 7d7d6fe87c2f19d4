/**
 * A signal that aborts when the client goes away before its response was sent, so the executor abandons
 * the work (and a write in progress rolls back instead of committing for nobody).
 */
import type { ServerResponse } from 'node:http';

export function disconnectSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  // 'close' also follows a normal response; only one that ends before the response did is a disconnect.
  res.once('close', () => {
    if (!res.writableEnded) controller.abort(new Error('The client disconnected'));
  });
  return controller.signal;
}
