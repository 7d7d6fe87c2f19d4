/**
 * npm run bench:tracing: what traces cost, as CPU time per request of the server process (from
 * /proc/<pid>/stat, so a machine shared with other work skews it far less than requests per second).
 * The same build runs twice, without OTEL_EXPORTER_OTLP_ENDPOINT and with it (exporting to a sink that
 * discards), under the same fixed number of requests, in alternating rounds; the medians are compared.
 * Linux only (it reads /proc).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 10;

/** CPU milliseconds (user + system) the process has used so far. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

async function startServer(dataDir: string, env: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawn('node', ['dist/main.js'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-00',
      RATE_LIMITS: 'off',
      ...env,
    },
  });
  child.stderr.on('data', (chunk) => process.stderr.write(chunk));
  const port = await new Promise<number>((resolve) =>
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.includes('"msg":"listening"')) resolve(JSON.parse(line).port as number);
    }),
  );
  return { child, port };
}

const graphqlBody = JSON.stringify({
  query:
    'query ($mood: Mood!) { recommendMoviesForMood(mood: $mood) { id title releaseYear genre rating runtime directors { name } } }',
  variables: { mood: 'HORROR' },
});
const ENVELOPE_2026 = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
let nextId = 0;
const CASES: Record<string, (port: number) => autocannon.Options> = {
  'GraphQL POST recommendMoviesForMood': (port) => ({
    url: `http://127.0.0.1:${port}/graphql`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: graphqlBody,
  }),
  'MCP tools/call, 2026-07-28 client': (port) => ({
    url: `http://127.0.0.1:${port}/mcp`,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'recommendMoviesForMood',
    },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: ++nextId,
            method: 'tools/call',
            params: { name: 'recommendMoviesForMood', arguments: { mood: 'HORROR' }, _meta: ENVELOPE_2026 },
          }),
        }),
      },
    ],
  }),
};

/** CPU microseconds per request for one batch, after a warm-up batch. */
async function cpuPerRequest(pid: number, options: autocannon.Options): Promise<number> {
  await autocannon({ ...options, connections: CONNECTIONS, amount: 500 });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
  await settle();
  const before = cpuMs(pid);
  const result = await autocannon({ ...options, connections: CONNECTIONS, amount: REQUESTS });
  // Spans of the batch are exported within the schedule delay (100 ms below): count that work too.
  await settle();
  if (result.errors + result.non2xx > 0) throw new Error(`${result.errors + result.non2xx} requests failed`);
  return ((cpuMs(pid) - before) * 1000) / REQUESTS;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'moviedb-bench-tracing-'));
  const variants = {
    off: await startServer(path.join(dataDir, 'off'), {}),
    on: await startServer(path.join(dataDir, 'on'), {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    }),
  };
  try {
    const rows = [];
    for (const [name, options] of Object.entries(CASES)) {
      const samples: Record<keyof typeof variants, number[]> = { off: [], on: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
        for (const variant of order) {
          const { child, port } = variants[variant];
          samples[variant].push(await cpuPerRequest(child.pid!, options(port)));
        }
      }
      const off = median(samples.off);
      const on = median(samples.on);
      rows.push({
        case: name,
        'CPU µs/request, tracing off': Math.round(off),
        'CPU µs/request, tracing on': Math.round(on),
        'on / off': (on / off).toFixed(2),
      });
    }
    console.log(
      `\ntracing cost: ${REQUESTS} requests × ${ROUNDS} rounds per case, medians, node ${process.version}`,
    );
    console.table(rows);
  } finally {
    for (const { child } of Object.values(variants)) child.kill('SIGTERM');
    sink.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
