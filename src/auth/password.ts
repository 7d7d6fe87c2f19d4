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

interface StoredHash {
  cost: Required<Pick<ScryptOptions, 'N' | 'r' | 'p'>>;
  salt: Buffer;
  key: Buffer;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const isWhole = (text: string | undefined, max: number) =>
  text !== undefined && /^[1-9][0-9]{0,7}$/.test(text) && Number(text) <= max;

/**
 * A stored hash's parts, or undefined when it is not one this module could have made: a cost scrypt
 * would refuse or that would take more than MAX_MEM (N a power of two, r and p in bounds), a salt under 8
 * bytes, a key of another length. A stored string comes from the database or a seed file, so it is
 * checked before scrypt sees it: a malformed one must fail a sign-in, not throw out of it.
 */
function parseStoredHash(stored: string): StoredHash | undefined {
  const [scheme, n, r, p, salt, key, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || rest.length > 0 || !isWhole(n, 2 ** 20) || !isWhole(r, 32) || !isWhole(p, 16))
    return undefined;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if ((cost.N & (cost.N - 1)) !== 0 || cost.N < 2 || 128 * cost.N * cost.r + 128 * cost.r * cost.p > MAX_MEM)
    return undefined;
  if (!BASE64.test(salt ?? '') || !BASE64.test(key ?? '')) return undefined;
  const parsed = { cost, salt: Buffer.from(salt!, 'base64'), key: Buffer.from(key!, 'base64') };
  return parsed.salt.length >= 8 && parsed.key.length === KEY_LENGTH ? parsed : undefined;
}

/** Whether `stored` is a hash made as hashPassword makes them, at its cost or higher (a seed's check). */
export function isPasswordHash(stored: string): boolean {
  const parsed = parseStoredHash(stored);
  return parsed !== undefined && parsed.cost.N >= DEFAULT_COST.N && parsed.cost.r >= DEFAULT_COST.r;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStoredHash(stored);
  if (!parsed) return false;
  const actual = await derive(password, parsed.salt, parsed.cost);
  return timingSafeEqual(actual, parsed.key);
}

/**
 * A hash of a random password (made once, the password thrown away), checked when the username is unknown
 * so that "no such user" and "wrong password" take the same time and cannot be told apart. A constant,
 * not computed at start: hashing costs a 16 MiB scrypt buffer, which the allocator then kept resident.
 * Nothing it matches can sign in: it is only ever checked for a user that does not exist.
 */
export const DECOY_HASH =
  'scrypt$16384$8$1$momYoHZzTxjWdNlt2O89yQ==$+R5zyMHvqtZ1O7sgz2VyEdBpYpz6XNu2Sl8pK0vPIhg=';
