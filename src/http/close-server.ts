/**
 * The last step of a drain: closing the HTTP server without resetting a request a client already sent.
 *
 * http.Server's close() cuts every idle keep-alive socket at once, and a busy client sends its next
 * request on one before it has seen the close: that request was reset (about one per busy client on a
 * SIGTERM under load). Here the server first only stops accepting, and the open connections get to carry
 * their next request, answered with Connection: close (the drain's 503, a probe's 200). Once no request
 * came for `quietMs` (the clients left are idle: nothing of theirs is on the way) the idle sockets are
 * cut while answers under way finish; after `maxMs` in all, every socket is cut.
 */
import net from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface CloseServerOptions {
  /** How long without a new request before the idle sockets are cut. */
  quietMs: number;
  /** How long at most before every socket is cut, answers under way and requests being read included. */
  maxMs: number;
}

export async function closeServer(server: Server, { quietMs, maxMs }: CloseServerOptions): Promise<void> {
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  const deadline = performance.now() + maxMs;
  // net.Server's close only stops accepting; http.Server's would also cut the idle sockets at once.
  net.Server.prototype.close.call(server);
  let lastRequest = performance.now();
  // Every answer closes its connection, the probes' too (the drain's refusals say so already): a
  // keep-alive poller of /healthz would otherwise hold the window open to its end and have its request
  // cut. First in line, before the app answers.
  const onRequest = (_req: IncomingMessage, res: ServerResponse) => {
    lastRequest = performance.now();
    res.setHeader('Connection', 'close');
  };
  server.prependListener('request', onRequest);
  try {
    await waitFor(closed, () => Math.min(lastRequest + quietMs, deadline));
    // http.Server's close cuts the idle sockets and stops Node's sweep of request timeouts. It may make
    // net emit 'close' a second time (whenever the connections count down to none); `closed` listens once.
    server.close();
    await waitFor(closed, () => deadline);
  } finally {
    server.off('request', onRequest);
  }
  server.closeAllConnections();
  await closed;
}

/** Resolves when `done` does or once the time `until()` names (it may move later meanwhile) has come. */
async function waitFor(done: Promise<void>, until: () => number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const due = new Promise<void>((resolve) => {
    const check = () => {
      const left = until() - performance.now();
      if (left <= 0) resolve();
      else timer = setTimeout(check, left);
    };
    check();
  });
  await Promise.race([done, due]);
  clearTimeout(timer);
}
