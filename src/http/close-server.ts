/**
 * The last step of a drain: closing the HTTP server without resetting a request a client already sent.
 *
 * http.Server's close() cuts every idle keep-alive socket at once, and a busy client sends its next
 * request on one before it has seen the close: that request was reset (about one per busy client on a
 * SIGTERM under load). Here the server only stops accepting (a client that connects now is refused, so it
 * knows nothing was sent), and the open connections get to carry their next request, answered with
 * Connection: close (the drain's 503; a probe's answer). Once no request arrived for `quietMs` (the clients left are idle:
 * nothing of theirs is on the way), or after `maxMs` in all, the remaining sockets are cut.
 */
import net from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface CloseServerOptions {
  /** How long without a new request before the idle sockets are cut. */
  quietMs: number;
  /** How long at most before every socket is cut, requests still being read included. */
  maxMs: number;
}

export async function closeServer(server: Server, { quietMs, maxMs }: CloseServerOptions): Promise<void> {
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  // net.Server's close stops accepting; http.Server's would also cut the idle sockets (done last, below).
  net.Server.prototype.close.call(server);
  let lastRequest = Date.now();
  // Every answer closes its connection, the probes' too (the drain refuses the rest with Connection:
  // close already): a keep-alive poller of /healthz would otherwise hold the window open to its end and
  // have its request cut. First in line, before the app answers.
  const onRequest = (_req: IncomingMessage, res: ServerResponse) => {
    lastRequest = Date.now();
    res.setHeader('Connection', 'close');
  };
  server.prependListener('request', onRequest);
  const deadline = lastRequest + maxMs;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    closed,
    new Promise<void>((resolve) => {
      const check = () => {
        const now = Date.now();
        const until = Math.min(deadline, lastRequest + quietMs);
        if (now >= until) resolve();
        else timer = setTimeout(check, until - now);
      };
      timer = setTimeout(check, Math.min(quietMs, maxMs));
    }),
  ]);
  clearTimeout(timer);
  server.off('request', onRequest);
  // http.Server's close as well: it stops Node's sweep of request timeouts. When the last connection had
  // already ended, it emits 'close' a second time; only `closed` above listens, once.
  server.close();
  server.closeAllConnections();
  await closed;
}
