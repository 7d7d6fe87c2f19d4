/**
 * The last step of a drain: closing the HTTP server without resetting a request a client already sent.
 *
 * http.Server's close() cuts every idle keep-alive socket at once, and a busy client sends its next
 * request on one before it has seen the close: that request was reset (about one per busy client on a
 * SIGTERM under load). Here the server first only stops accepting, and the open connections get to carry
 * their next request, answered with Connection: close (the drain's 503, a probe's 200). Once no answer is
 * under way and none ended nor any request came for `quietMs` (the clients left are idle: nothing of
 * theirs is on the way), or after `maxMs` in all, every socket is cut. (Answers begun before the call
 * are the caller's: the drain has waited for its own.)
 */
import net from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface CloseServerOptions {
  /** How long with no answer under way, and none begun or ended, before the sockets left are cut. */
  quietMs: number;
  /** How long at most before every socket is cut, answers under way and requests being read included. */
  maxMs: number;
}

export async function closeServer(server: Server, { quietMs, maxMs }: CloseServerOptions): Promise<void> {
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  const deadline = performance.now() + maxMs;
  // net.Server's close only stops accepting; http.Server's would also cut the idle sockets at once.
  net.Server.prototype.close.call(server);
  let lastActivity = performance.now();
  let answering = 0;
  let timer: NodeJS.Timeout | undefined;
  let quietCame = () => {};
  const quiet = new Promise<void>((resolve) => (quietCame = resolve));
  // Waits for the bound while an answer is under way, else for `quietMs` after the last request or answer.
  const check = () => {
    clearTimeout(timer);
    const until = answering > 0 ? deadline : Math.min(lastActivity + quietMs, deadline);
    const left = until - performance.now();
    if (left <= 0) quietCame();
    else timer = setTimeout(check, left);
  };
  // Every answer closes its connection, the probes' too (the drain's refusals say so already): a
  // keep-alive poller of /healthz would otherwise hold the window open to its end and have its request
  // cut. First in line, before the app answers.
  const onRequest = (_req: IncomingMessage, res: ServerResponse) => {
    lastActivity = performance.now();
    answering += 1;
    res.setHeader('Connection', 'close');
    res.once('close', () => {
      answering -= 1;
      lastActivity = performance.now();
      check();
    });
  };
  server.prependListener('request', onRequest);
  check();
  await Promise.race([closed, quiet]);
  clearTimeout(timer);
  server.off('request', onRequest);
  // Nothing is being answered: what is left is idle, never sent a byte, or is still sending its headers.
  // http.Server's close as well: it stops Node's sweep of request timeouts (and may make net emit 'close'
  // a second time: `closed` listens once).
  server.close();
  server.closeAllConnections();
  await closed;
}
