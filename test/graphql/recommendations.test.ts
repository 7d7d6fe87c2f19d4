import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, startTestServer, type TestServer } from '../helpers/server.js';
import { seed } from '../helpers/seed.js';

/** docs/contract.md, Recommendations, restated independently of src/domain/moods.ts so a change there is caught. */
const RULES: Record<string, { genres: string[]; min: number; cap?: number }> = {
  COMFORT: { genres: ['COMEDY', 'ROMANCE', 'FANTASY'], min: 7.0, cap: 140 },
  ADVENTURE: { genres: ['ACTION', 'FANTASY', 'SCIFI', 'WESTERN'], min: 6.5 },
  ROMANCE: { genres: ['ROMANCE', 'DRAMA'], min: 6.5 },
  HORROR: { genres: ['HORROR', 'THRILLER', 'MYSTERY'], min: 6.0 },
  THOUGHTFUL: { genres: ['DRAMA', 'SCIFI', 'WAR', 'MYSTERY', 'CRIME'], min: 7.5 },
  COMEDY: { genres: ['COMEDY', 'ROMANCE'], min: 6.0 },
};

function expectedIds(mood: string, watched: number[] = []): string[] {
  const rule = RULES[mood]!;
  return seed.movies
    .filter(
      (m) => m.genre !== null && m.rating !== null && rule.genres.includes(m.genre) && m.rating >= rule.min,
    )
    .filter((m) => rule.cap === undefined || m.runtime === null || m.runtime <= rule.cap)
    .filter((m) => !watched.includes(m.id))
    .sort((a, b) => b.rating! - a.rating! || a.id - b.id)
    .slice(0, 10)
    .map((m) => String(m.id));
}

const QUERY = `query ($mood: Mood!, $excludeWatched: Boolean) {
  recommendMoviesForMood(mood: $mood, excludeWatched: $excludeWatched) { id title rating }
}`;

describe.each(dialects)('recommendMoviesForMood on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.stop());

  const ids = async (mood: string, token?: string, excludeWatched?: boolean) => {
    const response = await server.graphql<{ recommendMoviesForMood: { id: string }[] }>(
      QUERY,
      { mood, excludeWatched },
      token,
    );
    expect(response.body.errors).toBeUndefined();
    return response.body.data!.recommendMoviesForMood.map((m) => m.id);
  };

  it('HORROR gives the spec example order 49, 52, 56, 57, 55, 51, 58, 54, 59', async () => {
    expect(await ids('HORROR')).toEqual(['49', '52', '56', '57', '55', '51', '58', '54', '59']);
  });

  it.each(Object.keys(RULES))(
    '%s matches the rule: genres, minimum rating, runtime cap, order and cut',
    async (mood) => {
      const actual = await ids(mood);
      expect(actual).toEqual(expectedIds(mood));
      expect(actual.length).toBeLessThanOrEqual(10);
    },
  );

  it('COMFORT leaves out a qualifying movie longer than 140 minutes', async () => {
    const longComfort = seed.movies.filter(
      (m) =>
        ['COMEDY', 'ROMANCE', 'FANTASY'].includes(m.genre ?? '') &&
        (m.rating ?? 0) >= 7 &&
        (m.runtime ?? 0) > 140,
    );
    expect(longComfort.length).toBeGreaterThan(0);
    const actual = await ids('COMFORT');
    for (const movie of longComfort) expect(actual).not.toContain(String(movie.id));
  });

  it('excludeWatched drops the signed-in viewer’s WATCHED movies', async () => {
    const { token } = await server.newUser();
    const before = await ids('HORROR', token, true);
    const add = await server.graphql(
      'mutation { addToWatchlist(subject: { movieId: "49" }, status: WATCHED) { id } }',
      undefined,
      token,
    );
    expect(add.body.errors).toBeUndefined();
    const after = await ids('HORROR', token, true);
    expect(before[0]).toBe('49');
    expect(after).toEqual(expectedIds('HORROR', [49]));
    // Without the flag the watched movie stays.
    expect(await ids('HORROR', token, false)).toContain('49');
  });

  it('excludeWatched keeps WANT_TO_WATCH movies and is ignored for anonymous callers', async () => {
    const { token } = await server.newUser();
    await server.graphql('mutation { addToWatchlist(subject: { movieId: "52" }) { id } }', undefined, token);
    expect(await ids('HORROR', token, true)).toContain('52');
    expect(await ids('HORROR', undefined, true)).toEqual(expectedIds('HORROR'));
  });

  it('an unknown mood is a BAD_REQUEST, not an empty list', async () => {
    const response = await server.graphql(QUERY, { mood: 'SLEEPY' });
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions?.classification).toBe('BAD_REQUEST');
  });
});
