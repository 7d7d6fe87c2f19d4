import { describe, expect, it } from 'vitest';
import { DECOY_HASH, hashPassword, isPasswordHash, verifyPassword } from '../../src/auth/password.js';

// A stored hash comes from the database or a seed file: whatever it holds, a sign-in gets true or
// false, never an exception out of scrypt (a NaN or oversized cost) that would answer 500.
const [, , , , SALT, KEY] = DECOY_HASH.split('$');
const MALFORMED = [
  '',
  'plain',
  'scrypt$garbage',
  `scrypt$abc$8$1$${SALT}$${KEY}`,
  `scrypt$0$8$1$${SALT}$${KEY}`,
  `scrypt$1000$8$1$${SALT}$${KEY}`,
  `scrypt$1048576$8$1$${SALT}$${KEY}`,
  `scrypt$16384$8$1$${SALT}$`,
  `scrypt$16384$8$1$${SALT}$${KEY}$extra`,
  `scrypt$16384$8$1$$${KEY}`,
  `scrypt$16384$8$1$${SALT}$AAAA`,
  `scrypt$16384$-8$1$${SALT}$${KEY}`,
  `scrypt$16384$8$1e1$${SALT}$${KEY}`,
];

describe('stored password hashes', () => {
  it('a hash this module made verifies its password and no other', async () => {
    const stored = await hashPassword('correct horse');
    expect(isPasswordHash(stored)).toBe(true);
    await expect(verifyPassword('correct horse', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse!', stored)).resolves.toBe(false);
  });

  it.each(MALFORMED)('a malformed stored hash fails the sign-in without throwing: %s', async (stored) => {
    expect(isPasswordHash(stored)).toBe(false);
    await expect(verifyPassword('user123', stored)).resolves.toBe(false);
  });

  it('a seed may not carry a hash weaker than the one made here', () => {
    expect(isPasswordHash(DECOY_HASH)).toBe(true);
    expect(isPasswordHash(`scrypt$2$1$1$${SALT}$${KEY}`)).toBe(false);
  });
});
