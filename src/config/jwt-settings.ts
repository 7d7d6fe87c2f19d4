import { z } from 'zod';
import { int, section, setting } from './setting.js';

export const jwtSettings = section(
  'Tokens issued by this server',
  z.object({
    secret: setting('JWT_SECRET', z.string().min(32, 'must be at least 32 characters').optional(), {
      description:
        'HS256 signing key, at least 32 characters (`openssl rand -base64 48`). Required in production; in development one is generated in `DATA_DIR/jwt-secret`.',
      shownDefault: 'generated in development',
    }),
    issuer: setting(
      'JWT_ISSUER',
      z.string().min(1).default('moviedb-mcp'),
      '`iss` of issued tokens, required on verification.',
    ),
    audience: setting(
      'JWT_AUDIENCE',
      z.string().min(1).default('moviedb-mcp'),
      '`aud` of issued tokens, required on verification.',
    ),
    ttlSeconds: setting(
      'JWT_TTL_SECONDS',
      int(60, 604800, 86400),
      'Lifetime of issued tokens in seconds (24 h).',
    ),
  }),
);
