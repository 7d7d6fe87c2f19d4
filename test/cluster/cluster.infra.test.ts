/**
 * Two replicas behind the load balancer of `npm run cluster` (docs/deployment.md, Several replicas), on
 * PostgreSQL and Redis: one cluster for every case, since starting one is the costliest thing a test
 * here does. The cases that need it whole run first (cluster-session-cases.ts); then the ones that cut
 * streams and, last, kill a replica (cluster-resumption-cases.ts). Needs nginx, TEST_DATABASE_URL and
 * TEST_REDIS_URL; without them the tests are skipped with a message, unless REQUIRE_CLUSTER=1 (CI sets
 * it), where that fails.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { CLUSTER_ENV, requireClusterPrerequisites } from './cluster-probes.js';
import { clusterResumptionCases } from './cluster-resumption-cases.js';
import { clusterSessionCases } from './cluster-session-cases.js';

const missing = await requireClusterPrerequisites();

describe.skipIf(missing.length > 0)('two replicas behind nginx (round robin, no affinity)', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster(CLUSTER_ENV);
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  describe('serve any request', () => clusterSessionCases(() => cluster));
  describe('resume a cut stream on the other replica; survive one killed', () =>
    clusterResumptionCases(() => cluster));
});
