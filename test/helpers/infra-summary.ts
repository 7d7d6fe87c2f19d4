/**
 * Vitest global setup: after the run, says loudly which services this machine lacked, so a local run
 * that skipped the infrastructure tests cannot pass for a full one. CI provides all of them and sets
 * REQUIRE_CLUSTER and REQUIRE_CHROMIUM, so there a missing service fails the tests that need it instead.
 */
import { existsSync } from 'node:fs';
import { redisAvailable } from './redis.js';

interface Service {
  name: string;
  missing: () => Promise<string | undefined>;
}

const SERVICES: Service[] = [
  {
    name: 'PostgreSQL',
    missing: async () =>
      process.env.TEST_DATABASE_URL
        ? undefined
        : 'TEST_DATABASE_URL is unset: front-door tests ran on SQLite only, PostgreSQL tests were skipped',
  },
  {
    name: 'Redis',
    missing: async () =>
      (await redisAvailable().catch(() => false))
        ? undefined
        : 'no Redis at TEST_REDIS_URL (default 127.0.0.1:6379): shared-state tests were skipped',
  },
  {
    name: 'nginx',
    missing: async () =>
      existsSync('/usr/sbin/nginx')
        ? undefined
        : '/usr/sbin/nginx is missing: the cluster tests were skipped',
  },
  {
    name: 'Chromium',
    missing: async () =>
      existsSync('/usr/bin/chromium')
        ? undefined
        : '/usr/bin/chromium is missing: the browser tests were skipped',
  },
];

export default function setup(): () => Promise<void> {
  return async () => {
    // Every project inherits this setup from the root config; the summary is the run's, said once.
    if (process.env.VITEST_INFRA_SUMMARY_SAID) return;
    process.env.VITEST_INFRA_SUMMARY_SAID = '1';
    const missing = (await Promise.all(SERVICES.map((service) => service.missing()))).filter(
      (line): line is string => line !== undefined,
    );
    if (missing.length === 0) return;
    const lines = ['NOT A FULL RUN: this machine lacks services the infrastructure tests need', ...missing];
    const width = Math.max(...lines.map((line) => line.length));
    const rule = '!'.repeat(width + 4);
    console.warn(['', rule, ...lines.map((line) => `! ${line.padEnd(width)} !`), rule, ''].join('\n'));
  };
}
