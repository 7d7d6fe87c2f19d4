import { z } from 'zod';
import { int, section, setting } from './setting.js';

export const rateLimitSettings = section(
  "Abuse limits (each window is fixed and starts with a key's first count)",
  z.object({
    enabled: setting(
      'RATE_LIMITS',
      z.enum(['on', 'off']).default('on'),
      '`off` turns every rate limit off (benchmarks; a deployment whose gateway limits instead).',
    ).transform((value) => value === 'on'),
    userOperations: setting(
      'RATE_LIMIT_USER_OPERATIONS',
      int(1, 1000000, 600),
      'Operations (GraphQL requests and tool calls) a signed-in user may run per operations window.',
    ),
    anonymousOperations: setting(
      'RATE_LIMIT_ANON_OPERATIONS',
      int(1, 1000000, 120),
      'Operations an anonymous client address (IPv6: its /64) may run per operations window.',
    ),
    userRequests: setting(
      'RATE_LIMIT_USER_REQUESTS',
      int(1, 10000000, 3000),
      'Request points a signed-in user may spend per operations window on requests that execute nothing: every MCP message (tools/list, resources, prompts, ping, initialize, ...) and every GraphQL document refused by parsing or validation, each weighted by its cost.',
    ),
    anonymousRequests: setting(
      'RATE_LIMIT_ANON_REQUESTS',
      int(1, 10000000, 600),
      'Request points an anonymous client address (IPv6: its /64) may spend per operations window.',
    ),
    operationsWindowSeconds: setting(
      'RATE_LIMIT_WINDOW_SECONDS',
      int(1, 86400, 60),
      'Length of the window of the operation and request limits, in seconds.',
    ),
    loginFailuresPerAccount: setting(
      'LOGIN_FAILURES_PER_ACCOUNT',
      int(1, 100000, 10),
      'Failed logins one account name (known or not) may take per login window.',
    ),
    loginFailuresPerAddress: setting(
      'LOGIN_FAILURES_PER_ADDRESS',
      int(1, 100000, 10),
      'Failed logins one client address may make per login window, whatever the accounts.',
    ),
    loginWindowSeconds: setting(
      'LOGIN_FAILURE_WINDOW_SECONDS',
      int(1, 86400, 900),
      'Length of the login-failure window, in seconds (15 minutes).',
    ),
    registrationsPerAddress: setting(
      'REGISTRATIONS_PER_ADDRESS',
      int(1, 100000, 5),
      'Registration attempts one client address may make per registration window.',
    ),
    registrationWindowSeconds: setting(
      'REGISTRATION_WINDOW_SECONDS',
      int(1, 86400, 3600),
      'Length of the registration window, in seconds (an hour).',
    ),
  }),
);
