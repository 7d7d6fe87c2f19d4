/**
 * A loopback TCP proxy that a test can stall or cut, to produce real hangs and real outages: in front of
 * PostgreSQL (between the server and its database), or in front of an HTTP server (between a client and
 * it, to cut one response mid-stream).
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Stop moving bytes: queries hang until resume(). What the connecting side sends meanwhile is kept. */
  stall(): void;
  resume(): void;
  /**
   * How many connections the connecting side has sent bytes on since the last stall, kept back: in
   * front of PostgreSQL each is a statement waiting on the database (so a test knows its call reached the store before acting on it).
   */
  holding(): number;
  /**
   * Stall as soon as the client side sends bytes matching `pattern` (a PostgreSQL query's text, say):
   * those bytes are passed on first, so the statement runs and its answer is what waits. Resolves then.
   */
  stallOn(pattern: RegExp): Promise<void>;
  /** Forget an armed stallOn that has not sprung. */
  disarm(): void;
  /** Cut every connection and refuse new ones until up(). */
  down(): void;
  up(): void;
  /** Cut the connections whose latest bytes from the client side match `pattern`; new ones still pass. */
  cutWhere(pattern: RegExp): number;
  /**
   * The connections whose latest bytes from the client side match `sent` and whose answer to them so far
   * matches `answer` (an SSE event id, say): a test waits on it before cutting a stream mid-answer.
   */
  answered(sent: RegExp, answer: RegExp): number;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  /** The latest chunk the client side sent, as text (enough to tell one request from another). */
  lastSent: string;
  /** What the upstream side sent since then, as text (the first 64 KiB). */
  answer: string;
  /** What the client side sent while stalled, delivered in order on resume. */
  held: Buffer[];
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let stalled = false;
  let isDown = false;
  let trap: { pattern: RegExp; sprung: () => void } | undefined;

  // The client side is still read while stalled (into `held`), so the proxy can tell what waits.
  const stall = () => {
    stalled = true;
    for (const { upstream } of pairs) upstream.pause();
  };

  const server = net.createServer((client) => {
    if (isDown) return client.destroy();
    const upstream = net.connect(targetPort, targetHost);
    const pair: Pair = { client, upstream, lastSent: '', answer: '', held: [] };
    pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      pair.lastSent = chunk.toString('latin1');
      pair.answer = '';
      if (stalled) return void pair.held.push(chunk);
      if (!upstream.write(chunk)) client.pause();
      if (trap?.pattern.test(pair.lastSent)) {
        const { sprung } = trap;
        trap = undefined;
        stall();
        sprung();
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (pair.answer.length < 65_536) pair.answer += chunk.toString('latin1');
      if (!client.write(chunk)) upstream.pause();
    });
    client.on('drain', () => !stalled && upstream.resume());
    upstream.on('drain', () => !stalled && client.resume());
    if (stalled) upstream.pause();
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;

  const cut = (which: (pair: Pair) => boolean) => {
    const chosen = [...pairs].filter(which);
    for (const pair of chosen) {
      pairs.delete(pair);
      pair.client.destroy();
      pair.upstream.destroy();
    }
    return chosen.length;
  };

  return {
    port,
    stall,
    resume() {
      stalled = false;
      for (const pair of pairs) {
        for (const chunk of pair.held.splice(0)) pair.upstream.write(chunk);
        pair.client.resume();
        pair.upstream.resume();
      }
    },
    holding: () => [...pairs].filter((pair) => pair.held.length > 0).length,
    stallOn(pattern) {
      return new Promise((sprung) => (trap = { pattern, sprung }));
    },
    disarm() {
      trap = undefined;
    },
    down() {
      isDown = true;
      cut(() => true);
    },
    up() {
      isDown = false;
    },
    cutWhere: (pattern) => cut((pair) => pattern.test(pair.lastSent)),
    answered: (sent, answer) =>
      [...pairs].filter((pair) => sent.test(pair.lastSent) && answer.test(pair.answer)).length,
    async close() {
      isDown = true;
      cut(() => true);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
