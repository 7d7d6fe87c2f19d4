/** Replicas sharing one Redis: the settings that make them share it, and waiting until a server sees it. */
import { expect } from 'vitest';
import type { Env } from '../../src/config.js';
import { REDIS_URL, runPrefix } from './redis.js';
import type { TestServer } from './server.js';

/** This test file's key prefix: `dropKeys(SHARED_RUN)` removes every namespace sharedEnv handed out. */
export const SHARED_RUN = runPrefix();
let namespaces = 0;

/** Shares one Redis namespace (fresh per call) between the servers given this env. */
export function sharedEnv(extra: Env = {}, redisUrl = REDIS_URL): Env {
  return { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `${SHARED_RUN}-${++namespaces}`, ...extra };
}

async function redisState(server: TestServer): Promise<string | undefined> {
  const body = (await (await fetch(`${server.url}/readyz`)).json()) as { checks?: { redis?: string } };
  return body.checks?.redis;
}

export const untilRedis = (server: TestServer, state: 'ok' | 'down') =>
  expect.poll(() => redisState(server), { timeout: 10_000, interval: 100 }).toBe(state);
