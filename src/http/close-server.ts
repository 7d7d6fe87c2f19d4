/**
 * The last step of a drain: closing the HTTP server without resetting a request a client already sent.
 *
 * http.Server's close() stops accepting and cuts every idle keep-alive socket at once. A busy client sends
 * its next request on one before it has seen the close, and a new connection the kernel has accepted
 * (its request already in the buffer) is reset when the listener closes: about one request per busy
 * client was reset on a SIGTERM under load, and most of a burst of new connections. So every request
 * from now on is answered with Connection: close (the drain's 503, a probe's 200), in two steps, each
 * until no answer is under way and no request came or answer ended for `quietMs`:
 *   1. the listener stays open, so a burst of connections opened just before the signal is answered;
 *      at most half of `maxMs`, since a client that reconnects after every answer would keep it open;
 *   2. the listener closes (a client that connects now is refused: it knows nothing was sent) and the
 *      open connections carry what is on its way; at `maxMs` in all, every socket is cut.
 * (Answers begun before the call are the caller's: the drain has waited for its own.)
 */
import net from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface CloseServerOptions {
  /** How long with no answer under way, and none begun or ended, before each step ends. */
  quietMs: number;
  /** How long at most before every socket is cut, answers under way and requests being read included. */
  maxMs: number;
}

export async function closeServer(server: Server, { quietMs, maxMs }: CloseServerOptions): Promise<void> {
  const start = performance.now();
  let lastActivity = start;
  let answering = 0;
  let wake = () => {};
  // Every answer closes its connection, the probes' too (the drain's refusals say so already): a
  // keep-alive poller of /healthz would otherwise hold the close open and have its request cut. First
  // in line, before the app answers.
  const onRequest = (_req: IncomingMessage, res: ServerResponse) => {
    lastActivity = performance.now();
    answering += 1;
    res.setHeader('Connection', 'close');
    res.once('close', () => {
      answering -= 1;
      lastActivity = performance.now();
      wake();
    });
  };
  /** Resolves once quiet (see above), or at `deadline` while an answer is under way or requests keep coming. */
  const quietOr = (deadline: number) =>
    new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const check = () => {
        clearTimeout(timer);
        const until = answering > 0 ? deadline : Math.min(lastActivity + quietMs, deadline);
        const left = until - performance.now();
        if (left > 0) return void (timer = setTimeout(check, left));
        wake = () => {};
        resolve();
      };
      wake = check;
      check();
    });

  server.prependListener('request', onRequest);
  await quietOr(start + maxMs / 2);
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  // net.Server's close only stops accepting; http.Server's would also cut the idle sockets at once.
  net.Server.prototype.close.call(server);
  lastActivity = performance.now();
  await quietOr(start + maxMs);
  server.off('request', onRequest);
  // Nothing is being answered: what is left is idle, never sent a byte, or is still sending its headers.
  // http.Server's close as well: it stops Node's sweep of request timeouts (and may make net emit 'close'
  // a second time, when no connection was left: `closed` listens once).
  server.close();
  server.closeAllConnections();
  await closed;
}
