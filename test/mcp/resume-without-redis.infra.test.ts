/**
 * Resumption of a cut 2025-era call stream on one server without Redis (the in-process event store),
 * through the front door. Calls are held slow by stalling a PostgreSQL proxy: needs TEST_DATABASE_URL.
 * Across replicas through Redis: shared-session-calls.infra.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cutPlainCallAndResume } from '../helpers/cut-plain-call-and-resume.js';
import { openSession } from '../helpers/mcp.js';
import { databaseUrl, startProxiedServer, type ProxiedServer } from '../helpers/proxied-server.js';
import { routedClient } from '../helpers/routed-client.js';
import { auditOf } from '../helpers/session-requests.js';

describe.skipIf(!databaseUrl)(
  'resuming a cut stream without Redis (in-process event store, postgres)',
  () => {
    let env: ProxiedServer;
    afterEach(() => env?.stop());

    it('a plain call (the lean path) whose stream is cut mid-call resumes with Last-Event-ID on the same server and gets its result; a stream that ended normally is forgotten', async () => {
      env = await startProxiedServer({ STORE_READ_RETRIES: '0' });
      await cutPlainCallAndResume(env, env.server.url, await openSession(env.server.url));
    });

    it('a real client whose tools/call stream is cut reconnects with Last-Event-ID to the same server and receives the rest and the result', async () => {
      env = await startProxiedServer({ STORE_READ_RETRIES: '0' });
      const { client, transport, resumes } = routedClient(() => env.server.url, { cutCalls: true });
      await client.connect(transport);
      env.proxy.stall();
      const progress: number[] = [];
      const pending = client.callTool(
        { name: 'summarizeMovieReviews', arguments: { movieId: '2' } },
        undefined,
        { onprogress: (p) => progress.push(p.progress), timeout: 30_000 },
      );
      await expect.poll(() => resumes.length, { timeout: 5000 }).toBe(1);
      env.proxy.resume();
      const result = (await pending) as unknown as {
        isError?: boolean;
        structuredContent: { data: unknown };
      };
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.data).toMatchObject({ movieId: '2' });
      expect(progress.length).toBeGreaterThan(0);
      expect(auditOf(env, 'summarizeMovieReviews').map((line) => line.outcome)).toEqual(['OK']);
      await client.close();
    });
  },
);
