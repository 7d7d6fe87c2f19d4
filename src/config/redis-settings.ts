import { z } from 'zod';
import { section, setting } from './setting.js';

export const redisSettings = section(
  'Shared state (optional): without REDIS_URL every counter and session stays in the process',
  z.object({
    url: setting(
      'REDIS_URL',
      z
        .string()
        .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
        .optional(),
      {
        description:
          '`redis://` or `rediss://` URL: rate-limit counters and 2025 MCP sessions (with their resumable streams) kept there, shared by every replica using it.',
        example: 'redis://127.0.0.1:6379',
      },
    ),
    keyPrefix: setting(
      'REDIS_KEY_PREFIX',
      z
        .string()
        .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, `_`, `.` or `-`')
        .default('moviedb'),
      "Namespace of this deployment's keys in Redis, so several deployments can share one server.",
    ),
  }),
);
