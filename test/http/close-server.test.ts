/**
 * closeServer (src/http/close-server.ts) on a plain HTTP server and real sockets: a request on an open
 * connection is still answered, with Connection: close; once no request came for the quiet time the idle
 * connections are cut while an answer under way finishes; the bound cuts one that never does. (The
 * drain's own use, with its 503s, is in drain.test.ts.)
 */
import { Agent, createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServer } from '../../src/http/close-server.js';
import { raw } from '../helpers/raw-http.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A server whose /held answers only when the test says, and whose other paths answer at once. */
async function heldServer(): Promise<{ server: Server; url: string; held: Promise<ServerResponse> }> {
  let hold: (res: ServerResponse) => void = () => undefined;
  const held = new Promise<ServerResponse>((resolve) => (hold = resolve));
  const server = createServer((req, res) => (req.url === '/held' ? hold(res) : res.end('now')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => server.closeAllConnections());
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, held };
}

/** A keep-alive connection that has carried a request and now sits idle: its agent and its socket. */
async function idleConnection(url: string): Promise<{ agent: Agent; socket: Socket }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  cleanups.push(() => agent.destroy());
  expect((await raw(`${url}/now`, { agent })).body).toBe('now');
  return { agent, socket: Object.values(agent.freeSockets)[0]![0]! };
}

describe('closeServer', () => {
  it('cuts the idle connections once quiet, and lets an answer under way finish, closing its connection', async () => {
    const { server, url, held } = await heldServer();
    const busy = await idleConnection(url);
    const idle = await idleConnection(url);
    const idleCut = new Promise((resolve) => idle.socket.once('close', resolve));

    const closing = closeServer(server, { quietMs: 50, maxMs: 60_000 });
    // New connections are refused now: only an open one carries this request.
    const answer = raw(`${url}/held`, { agent: busy.agent });
    const res = await held;
    await idleCut;
    res.end('finished');
    const finished = await answer;
    expect(finished.body).toBe('finished');
    expect(finished.headers.connection).toBe('close');
    await closing;
  });

  it('cuts an answer that is still under way when the bound is over', async () => {
    const { server, url, held } = await heldServer();
    const busy = await idleConnection(url);
    const closing = closeServer(server, { quietMs: 10, maxMs: 200 });
    const answer = raw(`${url}/held`, { agent: busy.agent });
    await held;
    await closing;
    await expect(answer).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});
