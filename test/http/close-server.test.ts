/**
 * closeServer (src/http/close-server.ts) on a plain HTTP server and real sockets: until quiet, a request
 * on an open connection or a new one is still answered, with Connection: close, and an answer under way
 * holds the close past the quiet time; new connections that never stop coming are refused from half the
 * bound on; then the connections left are cut, one that never sent a byte included; the bound cuts an
 * answer that never ends. (The drain's own use, with its 503s, is in drain.test.ts.)
 */
import { Agent, createServer, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServer } from '../../src/http/close-server.js';
import { raw } from '../helpers/raw-http.js';

const CHUNKS = 10;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** Writes a chunk every 50 ms, CHUNKS in all: an answer that outlasts a 150 ms quiet three times. */
function answerSlowly(res: ServerResponse, sent = 0): void {
  if (sent === CHUNKS) return void res.end();
  res.write(String(sent));
  setTimeout(() => answerSlowly(res, sent + 1), 50);
}

/** A server whose /slow answers slowly, whose /held answers never, and whose other paths answer at once. */
async function startServer(): Promise<{ server: Server; url: string; port: number }> {
  const server = createServer((req, res) => {
    if (req.url === '/slow') answerSlowly(res);
    else if (req.url !== '/held') res.end('now');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => server.closeAllConnections());
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, port };
}

/** A keep-alive connection that has carried a request and now sits idle: its agent and its socket. */
async function idleConnection(url: string): Promise<{ agent: Agent; socket: Socket }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  cleanups.push(() => agent.destroy());
  expect((await raw(`${url}/now`, { agent })).body).toBe('now');
  return { agent, socket: Object.values(agent.freeSockets)[0]![0]! };
}

describe('closeServer', () => {
  it('lets an answer under way finish past the quiet time, then cuts the idle connections', async () => {
    const { server, url } = await startServer();
    const busy = await idleConnection(url);
    const idle = await idleConnection(url);
    const idleCut = new Promise((resolve) => idle.socket.once('close', resolve));

    const closing = closeServer(server, { quietMs: 150, maxMs: 60_000 });
    const answer = await raw(`${url}/slow`, { agent: busy.agent });
    expect(answer.body).toBe('0123456789');
    expect(answer.headers.connection).toBe('close');
    await idleCut;
    await closing;
  });

  it('answers a new connection until quiet, with Connection: close, instead of refusing or resetting it', async () => {
    // A burst of new connections just after the signal sits in the kernel's queue, requests and all:
    // closing the listener then reset them.
    const { server, url } = await startServer();
    const closing = closeServer(server, { quietMs: 150, maxMs: 60_000 });
    const answer = await raw(`${url}/now`);
    expect(answer.body).toBe('now');
    expect(answer.headers.connection).toBe('close');
    await closing;
    await expect(raw(`${url}/now`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('stops accepting at half the bound when new connections keep coming, and answers every request it received', async () => {
    const { server, url } = await startServer();
    let received = 0;
    server.on('request', () => (received += 1));
    const closing = closeServer(server, { quietMs: 60_000, maxMs: 600 });
    // A client that opens a new connection after every answer (each closes its own): the quiet never comes.
    let answered = 0;
    let ended: NodeJS.ErrnoException | undefined;
    while (!ended) {
      await raw(`${url}/now`).then(
        () => (answered += 1),
        (error: NodeJS.ErrnoException) => (ended = error),
      );
    }
    // Refused once the listener closed; a connection still in the kernel's queue then is reset unread.
    expect(ended.code).toMatch(/^(ECONNREFUSED|ECONNRESET)$/);
    expect(answered).toBe(received);
    expect(answered).toBeGreaterThan(0);
    await closing;
  });

  it('cuts a connection that never sent a byte once quiet, without waiting for the bound', async () => {
    const { server, port } = await startServer();
    const silent = net.connect(port, '127.0.0.1');
    silent.on('error', () => undefined);
    cleanups.push(() => silent.destroy());
    await new Promise((resolve) => silent.once('connect', resolve));
    const cut = new Promise((resolve) => silent.once('close', resolve));
    // Node counts such a connection as busy (its headers' timeout runs), so http.Server's close leaves it.
    await closeServer(server, { quietMs: 20, maxMs: 60_000 });
    await cut;
  });

  it('cuts an answer that is still under way when the bound is over', async () => {
    const { server, url } = await startServer();
    const busy = await idleConnection(url);
    // The quiet alone would take a minute: only the bound ends this.
    const closing = closeServer(server, { quietMs: 60_000, maxMs: 300 });
    const answer = raw(`${url}/held`, { agent: busy.agent });
    await closing;
    await expect(answer).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});
