import path from 'node:path';
import { z } from 'zod';
import { int, section, setting } from './setting.js';
import { urlHost } from '../http/url-host.js';
import { PROJECT_ROOT } from './project-root.js';

/** A postgres:// URL from parts; user, password and name are percent-encoded, so `@`, `/`, `:` or `#` are safe. */
function databaseUrlFromParts(
  host: string,
  p: { port: number; user: string; password?: string; name: string },
) {
  const auth =
    encodeURIComponent(p.user) + (p.password === undefined ? '' : `:${encodeURIComponent(p.password)}`);
  return `postgres://${auth}@${urlHost(host)}:${p.port}/${encodeURIComponent(p.name)}`;
}

export const databaseSettings = section(
  'Storage',
  z.object({
    dataDir: setting(
      'DATA_DIR',
      z.string().min(1).default('./data'),
      'Folder for the embedded SQLite database and the generated development signing key.',
    ),
    url: setting(
      'DATABASE_URL',
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
        .optional(),
      '`postgres://…` switches storage from embedded SQLite to PostgreSQL (same migrations and seed); percent-encode special characters in the password.',
    ),
    host: setting(
      'DATABASE_HOST',
      z.string().min(1).optional(),
      'PostgreSQL host: the database in parts instead of `DATABASE_URL` (any password works as is); setting it switches to PostgreSQL.',
    ),
    port: setting('DATABASE_PORT', int(1, 65535, 5432), 'PostgreSQL port (with `DATABASE_HOST`).'),
    user: setting(
      'DATABASE_USER',
      z.string().min(1).default('postgres'),
      'PostgreSQL user (with `DATABASE_HOST`).',
    ),
    password: setting(
      'DATABASE_PASSWORD',
      z.string().optional(),
      'PostgreSQL password (with `DATABASE_HOST`); any characters, percent-encoded for you.',
    ),
    name: setting(
      'DATABASE_NAME',
      z.string().min(1).default('moviedb'),
      'PostgreSQL database name (with `DATABASE_HOST`).',
    ),
    schema: setting(
      'DATABASE_SCHEMA',
      z
        .string()
        .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
        .optional(),
      {
        description: 'PostgreSQL schema to use, created if missing (tests isolate runs with it).',
        shownDefault: "the user's search path, usually `public`",
      },
    ),
    poolSize: setting(
      'DATABASE_POOL_SIZE',
      int(1, 100, 10),
      'Upper bound on PostgreSQL connections per process.',
    ),
    seedFile: setting(
      'SEED_FILE',
      z
        .string()
        .min(1)
        .default(path.join(PROJECT_ROOT, 'seed', 'moviedb-seed.json')),
      {
        description: 'Seed catalogue loaded into an empty database.',
        shownDefault: "the project's `seed/moviedb-seed.json`",
      },
    ),
  }),
  'Set either `DATABASE_URL` or `DATABASE_HOST` (with its parts), not both.',
).transform(({ host, port, user, password, name, ...rest }) => ({
  ...rest,
  url: rest.url ?? (host ? databaseUrlFromParts(host, { port, user, password, name }) : undefined),
}));
