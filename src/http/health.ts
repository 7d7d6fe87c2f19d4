/**
 * Liveness (the process answers) and readiness (the database answers and we are not draining). Redis,
 * when configured, is reported but does not decide readiness: without it the limits count in process
 * and every request is still served, so taking the replica out of rotation would only lose capacity.
 */
import { TimeoutStrategy, timeout } from 'cockatiel';
import { Router } from 'express';
import { PROBE_ROUTES } from './route-table.js';

export interface ReadinessProbe {
  /** Rejects when the database cannot be reached. */
  ping(): Promise<void>;
  isDraining(): boolean;
  /** Set when REDIS_URL is: `ok` or `down`, answered within the Redis command timeout. */
  redis?: () => Promise<'ok' | 'down'>;
}

const PING_TIMEOUT_MS = 2000;

/**
 * The probe endpoints (health, readiness, metrics scrapes): answered even while draining, and logged at
 * debug when they succeed, since they arrive every few seconds and say nothing an operator reads.
 */
export const PROBE_PATHS: ReadonlySet<string> = new Set(PROBE_ROUTES);

export function healthRoutes(probe: ReadinessProbe): Router {
  const router = Router();
  // A ping that has not answered in time fails the probe (the slow ping itself is not waited for).
  const pingDeadline = timeout(PING_TIMEOUT_MS, {
    strategy: TimeoutStrategy.Aggressive,
    abortOnReturn: false,
  });
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (probe.isDraining()) {
      res.status(503).json({ status: 'draining' });
      return;
    }
    const redis = probe.redis ? { redis: await probe.redis() } : {};
    try {
      await pingDeadline.execute(() => probe.ping());
      res.json({ status: 'ready', checks: { database: 'ok', ...redis } });
    } catch {
      res.status(503).json({ status: 'unavailable', checks: { database: 'unreachable', ...redis } });
    }
  });
  return router;
}
