import { z } from 'zod';
import { int, seconds, section, setting } from './setting.js';

export const resultCacheSettings = section(
  'Result cache (public reads that are the same for every caller; every write clears it)',
  z.object({
    mb: setting('RESULT_CACHE_MB', int(0, 4096, 32), {
      description: 'Size of the result cache in MiB (results as JSON, with their keys); 0 turns it off.',
      see: 'architecture.md#the-result-cache',
    }),
    ttlSeconds: setting(
      'RESULT_CACHE_TTL_SECONDS',
      int(1, 86400, 60),
      "Longest a cached result is served, in seconds: bounds staleness where another replica's write cannot reach this one (without `REDIS_URL`; with it, writes clear every replica's cache at once).",
    ),
  }),
).transform(({ mb, ttlSeconds }) =>
  mb > 0 ? { maxBytes: mb * 1024 * 1024, ttlMs: seconds(ttlSeconds) } : undefined,
);
