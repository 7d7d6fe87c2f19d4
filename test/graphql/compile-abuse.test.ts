/**
 * Abuse: two anonymous clients, each within its rate limit, send ever new compile-heavy documents (each
 * one twice, since the default compiles a client's document on its second run). Compiling one took
 * 0.8 to 2 s of event loop and kept megabytes; none may be compiled, and /healthz must stay responsive
 * meanwhile. The bound on /healthz is generous (a shared two-core machine runs this suite): a single
 * compile of this document blocks longer than it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileHeavyDocument, HEAVY_FIELDS, HEAVY_OPERATION } from '../helpers/compile-heavy-document.js';
import { captureLogs } from '../helpers/log-capture.js';
import { raw } from '../helpers/raw-http.js';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';
import { pace } from '../helpers/time.js';

/** Documents per client, each sent twice: 16 requests, within the anonymous limit of 120 a minute. */
const VARIANTS = 8;
/** Each client sends at the pace its rate limit allows (120 a minute), as a patient attacker would. */
const PACE_MS = 500;
const HEALTH_P90_MS = 500;

const percentile = (values: number[], share: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(share * values.length))]!;

describe.each(dialects)('compile-heavy documents from anonymous clients on %s', (dialect) => {
  let server: TestServer;
  const logs = captureLogs('debug');
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      env: {
        GRAPHQL_JIT: 'repeated',
        GRAPHQL_JIT_FIELDS_PER_MINUTE: '1000',
        RATE_LIMIT_ANON_OPERATIONS: '120',
        RESULT_CACHE_MB: '0',
        LOG_LEVEL: 'debug',
      },
      logger: logs.logger,
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('are never compiled, and /healthz keeps answering quickly meanwhile', async () => {
    let sending = true;
    const send = async (localAddress: string, first: number) => {
      const statuses: number[] = [];
      for (let variant = first; variant < first + VARIANTS; variant++) {
        for (let run = 0; run < 2; run++) {
          const paced = pace(PACE_MS);
          const answer = await raw(`${server.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: compileHeavyDocument(variant) }),
            localAddress,
          });
          statuses.push(answer.status);
          expect(JSON.parse(answer.body)).not.toHaveProperty('errors');
          await paced;
        }
      }
      return statuses;
    };
    const probe = async () => {
      const latencies: number[] = [];
      while (sending) {
        const started = performance.now();
        const answer = await raw(`${server.url}/healthz`);
        latencies.push(performance.now() - started);
        expect(answer.status).toBe(200);
      }
      return latencies;
    };
    const probing = probe();
    const statuses = await Promise.all([send('127.0.0.1', 0), send('127.0.0.2', 1000)]).finally(() => {
      sending = false;
    });
    const latencies = await probing;

    expect(statuses.flat()).toEqual(Array(4 * VARIANTS).fill(200));
    const decisions = logs
      .lines()
      .filter((line) => line.msg === 'operation compiled' && line.operation === HEAVY_OPERATION);
    // One decision per document, made without compiling it; the client cache stayed empty.
    expect(decisions).toHaveLength(2 * VARIANTS);
    for (const decision of decisions) {
      expect(decision).toMatchObject({
        engine: 'graphql-js',
        origin: 'client',
        fields: HEAVY_FIELDS,
        cachedFields: 0,
      });
    }
    expect(latencies.length).toBeGreaterThan(10);
    expect(percentile(latencies, 0.9)).toBeLessThan(HEALTH_P90_MS);
  });
});
