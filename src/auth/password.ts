/**
 * Salted scrypt password hashes in a self-describing string (`scrypt$N$r$p$salt$hash`), so the cost can
 * rise later without invalidating stored hashes. Comparison is constant-time.
 */
import { randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;
const DEFAULT_COST: Required<Pick<ScryptOptions, 'N' | 'r' | 'p'>> = { N: 16384, r: 8, p: 1 };
const MAX_MEM = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, cost: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, { ...cost, maxmem: MAX_MEM }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

function encode(salt: Buffer, key: Buffer): string {
  const { N, r, p } = DEFAULT_COST;
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return encode(salt, await derive(password, salt, DEFAULT_COST));
}

/**
 * The same hash, made on the calling thread, for a batch made before the server listens (the seed's
 * accounts). Each hash takes a 16 MiB buffer, and glibc keeps it resident in the arena of the thread
 * that freed it: a batch spread over the libuv pool's four threads left 64 MiB behind, one thread 16.
 */
export function hashPasswordOnThisThread(password: string): string {
  const salt = randomBytes(16);
  return encode(salt, scryptSync(password, salt, KEY_LENGTH, { ...DEFAULT_COST, maxmem: MAX_MEM }));
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash of a random password (made once, the password thrown away), checked when the username is unknown
 * so that "no such user" and "wrong password" take the same time and cannot be told apart. A constant,
 * not computed at start: hashing costs a 16 MiB scrypt buffer, which the allocator then kept resident.
 * Nothing it matches can sign in: it is only ever checked for a user that does not exist.
 */
export const DECOY_HASH =
  'scrypt$16384$8$1$momYoHZzTxjWdNlt2O89yQ==$+R5zyMHvqtZ1O7sgz2VyEdBpYpz6XNu2Sl8pK0vPIhg=';
