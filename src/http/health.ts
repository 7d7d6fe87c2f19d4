/**
 * Liveness (the process answers) and readiness (the database answers and we are not draining). Redis,
 * when configured, is reported but does not decide readiness: without it the limits count in process
 * and every request is still served, so taking the replica out of rotation would only lose capacity.
 */
import { Router } from 'express';

export interface ReadinessProbe {
  /** Rejects when the database cannot be reached. */
  ping(): Promise<void>;
  isDraining(): boolean;
  /** Set when REDIS_URL is: `ok` or `down`, answered within the Redis command timeout. */
  redis?: () => Promise<'ok' | 'down'>;
}

const PING_TIMEOUT_MS = 2000;

export function healthRoutes(probe: ReadinessProbe): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (probe.isDraining()) {
      res.status(503).json({ status: 'draining' });
      return;
    }
    const redis = probe.redis ? { redis: await probe.redis() } : {};
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        probe.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
        }),
      ]);
      res.json({ status: 'ready', checks: { database: 'ok', ...redis } });
    } catch {
      res.status(503).json({ status: 'unavailable', checks: { database: 'unreachable', ...redis } });
    } finally {
      clearTimeout(timer);
    }
  });
  return router;
}
