/** The tokens the corpus sends: the user's, and signed or unsigned ones with every claim gone wrong. */
import { SignJWT, UnsecuredJWT } from 'jose';
import { TEST_AUDIENCE, TEST_ISSUER, TEST_JWT_SECRET } from '../helpers/server.js';
import type { CorpusTokens } from './hostile-cases.js';

export async function corpusTokens(userToken: string): Promise<CorpusTokens> {
  const key = new TextEncoder().encode(TEST_JWT_SECRET);
  const sign = (
    claims: Record<string, unknown>,
    options: { audience?: string; exp?: string; secret?: Uint8Array } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(TEST_ISSUER)
      .setAudience(options.audience ?? TEST_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(options.exp ?? '1h')
      .sign(options.secret ?? key);
  return {
    user: userToken,
    numericSub: await sign({ sub: 2, role: 'USER' }),
    objectSub: await sign({ sub: { id: 1 }, role: 'USER' }),
    emptySub: await sign({ sub: '', role: 'USER' }),
    unknownSub: await sign({ sub: 'nobody-at-all', role: 'ADMIN' }),
    noRole: await sign({ sub: 'user' }),
    oddRole: await sign({ sub: 'user', role: { admin: true } }),
    expired: await sign({ sub: 'user', role: 'USER' }, { exp: Math.floor(Date.now() / 1000) - 3600 + 's' }),
    otherAudience: await sign({ sub: 'user', role: 'USER' }, { audience: 'someone-else' }),
    otherSecret: await sign(
      { sub: 'user', role: 'ADMIN' },
      { secret: new TextEncoder().encode('another-secret-that-is-long-enough-0123456789') },
    ),
    algNone: new UnsecuredJWT({ sub: 'admin', role: 'ADMIN' })
      .setIssuer(TEST_ISSUER)
      .setAudience(TEST_AUDIENCE)
      .setExpirationTime('1h')
      .encode(),
  };
}
