/**
 * A loopback TCP proxy in front of Redis or PostgreSQL that keeps bytes instead of passing them on: the
 * answers only (the commands or statements run, the client waits for what they returned), or both ways
 * (a stall: commands wait unexecuted, as on a congested link, and run when it clears). What it keeps is
 * delivered, in order, on release. It also counts what the client sent, so a test knows its requests
 * reached their Redis call before it cuts them, or how many statements went out.
 */
import net from 'node:net';

export interface HoldingProxy {
  port: number;
  /** Pass the commands on, keep the answers. */
  holdAnswers(): void;
  /** Keep both ways: commands wait unexecuted. */
  stall(): void;
  /** Deliver everything kept, in order, and pass bytes on again. */
  release(): void;
  /** How often `text` occurs in what the client sent since the proxy started, or the last holdAnswers or stall. */
  sentCount(text: string): number;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  toUpstream: Buffer[];
  toClient: Buffer[];
}

export async function startHoldingProxy(targetHost: string, targetPort: number): Promise<HoldingProxy> {
  const pairs = new Set<Pair>();
  let mode: 'pass' | 'answers' | 'stall' = 'pass';
  let sent = '';

  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    const pair: Pair = { client, upstream, toUpstream: [], toClient: [] };
    pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      sent += chunk.toString('latin1');
      if (mode === 'stall') pair.toUpstream.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (mode === 'pass') client.write(chunk);
      else pair.toClient.push(chunk);
    });
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

  return {
    port,
    holdAnswers() {
      mode = 'answers';
      sent = '';
    },
    stall() {
      mode = 'stall';
      sent = '';
    },
    release() {
      mode = 'pass';
      for (const pair of pairs) {
        for (const chunk of pair.toUpstream.splice(0)) pair.upstream.write(chunk);
        for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
      }
    },
    sentCount: (text) => sent.split(text).length - 1,
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
