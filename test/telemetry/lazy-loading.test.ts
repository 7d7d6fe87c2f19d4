/**
 * Tracing costs nothing unless configured: the real `moviedb-mcp serve` process, with a probe that
 * reports which @opentelemetry packages it loaded, loads none of the SDK without an OTLP endpoint. With
 * one, it loads only the exporter of the chosen protocol and sends the spans still queued when it drains.
 * The same holds for the store's driver and the built-in authorization server's SDK.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir, spawnCli, waitForLine } from '../helpers/cli.js';
import { callTool, connectClient } from '../helpers/mcp.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { dialects, TEST_JWT_SECRET } from '../helpers/server.js';

const PROBE = path.resolve(import.meta.dirname, '../fixtures/report-opentelemetry-packages.mjs');
const PACKAGES = path.resolve(import.meta.dirname, '../fixtures/report-loaded-packages.mjs');

/** Starts the server, runs a /graphql request and a tool call, drains it with SIGTERM. */
async function serveOnce(env: Record<string, string>) {
  const child: ChildProcessWithoutNullStreams = spawnCli([], {
    env: { PORT: '0', DATA_DIR: scratchDir(), JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'info', ...env },
    preload: [PROBE],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const { url } = JSON.parse(await waitForLine(child, /"msg":"listening"/)) as { url: string };

  const graphql = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ movie(id: "1") { title } }' }),
  });
  const client = await connectClient(url);
  const tool = await callTool<{ title: string }>(client, 'getMovie', { id: '1' });
  await client.close();

  child.kill('SIGTERM');
  const code = await exited;
  const line = /^opentelemetry-packages: (.*)$/m.exec(stderr)?.[1];
  return {
    code,
    graphql: { status: graphql.status, body: (await graphql.json()) as unknown },
    tool,
    packages: JSON.parse(line ?? 'null') as string[] | null,
  };
}

describe('tracing is loaded only when configured', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());

  it('without OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry SDK package is loaded, and answers are as ever', async () => {
    const run = await serveOnce({});
    expect(run.code).toBe(0);
    expect(run.graphql).toEqual({
      status: 200,
      body: { data: { movie: { title: 'The Shawshank Redemption' } } },
    });
    expect(run.tool.isError).toBe(false);
    expect(run.tool.structuredContent.data.title).toBe('The Shawshank Redemption');
    // prom-client loads the API (a few kilobytes of no-op interfaces) for its exemplars; nothing else.
    expect(run.packages).not.toBeNull();
    expect(run.packages!.filter((name) => name !== '@opentelemetry/api')).toEqual([]);
    expect(receiver.requests).toEqual([]);
  });

  it('with it set, only the chosen exporter is loaded, and spans queued at SIGTERM go out before exit (http/protobuf by default)', async () => {
    // Far longer than the test: only the flush on shutdown can send these spans.
    const run = await serveOnce({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    expect(run.code).toBe(0);
    expect(run.graphql.status).toBe(200);
    expect(run.tool.isError).toBe(false);
    expect(run.packages).toEqual(
      expect.arrayContaining(['@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-proto']),
    );
    expect(run.packages).not.toContain('@opentelemetry/exporter-trace-otlp-http');

    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(receiver.requests.every((r) => r.path === '/v1/traces')).toBe(true);
    expect(receiver.requests.every((r) => r.contentType === 'application/x-protobuf')).toBe(true);
    // Protocol buffers keep strings as they are: names and the default service name are readable.
    const exported = Buffer.concat(receiver.requests.map((r) => r.body)).toString('latin1');
    for (const name of ['moviedb-mcp', 'POST /graphql', 'tools/call getMovie', 'SELECT movies']) {
      expect(exported).toContain(name);
    }
    expect(exported).not.toContain('The Shawshank Redemption');
  });
});

describe.each(dialects)('on %s, only what is used is loaded', (dialect) => {
  const schema = `lazy_${randomBytes(5).toString('hex')}`;
  const store: Record<string, string> =
    dialect === 'postgres' ? { DATABASE_URL: process.env.TEST_DATABASE_URL!, DATABASE_SCHEMA: schema } : {};
  afterAll(async () => {
    if (dialect !== 'postgres') return;
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  });

  it('the driver of the other store never, the v1 SDK (authorization server) at its first request', async () => {
    const child = spawnCli([], {
      env: { PORT: '0', DATA_DIR: scratchDir(), JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'info', ...store },
      preload: [PACKAGES],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const { url } = JSON.parse(await waitForLine(child, /"msg":"listening"/)) as { url: string };
      const loaded = async () => {
        const line = waitForLine(child, /^loaded-packages: /);
        child.kill('SIGUSR2');
        return JSON.parse((await line).replace(/^loaded-packages: /, '')) as string[];
      };
      const client = await connectClient(url);
      expect((await callTool(client, 'getMovie', { id: '1' })).isError).toBe(false);
      await client.close();
      const before = await loaded();
      expect(before).toContain('@modelcontextprotocol/server');
      expect(before).toContain(dialect === 'postgres' ? 'pg' : 'better-sqlite3');
      expect(before).not.toContain(dialect === 'postgres' ? 'better-sqlite3' : 'pg');
      expect(before).not.toContain('@modelcontextprotocol/sdk');

      const metadata = await fetch(`${url}/.well-known/oauth-authorization-server`);
      expect(metadata.status).toBe(200);
      expect(((await metadata.json()) as { issuer: string }).issuer).toBe(url);
      expect(await loaded()).toContain('@modelcontextprotocol/sdk');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
