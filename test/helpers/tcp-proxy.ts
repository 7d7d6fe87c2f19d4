/**
 * A loopback TCP proxy in front of PostgreSQL that a test can stall or cut, to produce real hangs and
 * real outages between the server and its database.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Stop moving bytes: queries hang until resume(). */
  stall(): void;
  resume(): void;
  /** Cut every connection and refuse new ones until up(). */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let stalled = false;
  let isDown = false;

  const server = net.createServer((client) => {
    if (isDown) return client.destroy();
    const upstream = net.connect(targetPort, targetHost);
    const pair = { client, upstream };
    pairs.add(pair);
    const forward = (from: net.Socket, to: net.Socket) =>
      from.on('data', (chunk) => {
        if (!to.write(chunk)) from.pause();
      });
    forward(client, upstream);
    forward(upstream, client);
    client.on('drain', () => !stalled && upstream.resume());
    upstream.on('drain', () => !stalled && client.resume());
    if (stalled) {
      client.pause();
      upstream.pause();
    }
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

  const cut = () => {
    isDown = true;
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
  };

  return {
    port,
    stall() {
      stalled = true;
      for (const { client, upstream } of pairs) {
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      stalled = false;
      for (const { client, upstream } of pairs) {
        client.resume();
        upstream.resume();
      }
    },
    down: cut,
    up() {
      isDown = false;
    },
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
