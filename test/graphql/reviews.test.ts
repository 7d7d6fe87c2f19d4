import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classificationOf, dialects, startTestServer, type TestServer } from '../helpers/server.js';
import { seed } from '../helpers/seed.js';

const SUMMARY = `query ($id: ID!) {
  summarizeMovieReviews(movieId: $id) { movieId reviewCount summary themes averageScore }
}`;
const CREATE = `mutation ($input: CreateReviewInput!) {
  createReview(input: $input) { id score comment createdAt user { username } }
}`;

function reviewCount(movieId: number): number {
  return seed.reviews.filter((r) => r.movieId === movieId).length;
}
const unreviewed = seed.movies.find((m) => reviewCount(m.id) === 0)!;
const fewReviews = seed.movies.find((m) => reviewCount(m.id) === 1 || reviewCount(m.id) === 2)!;

describe.each(dialects)('reviews on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.stop());

  type Summary = {
    movieId: string;
    reviewCount: number;
    summary: string | null;
    themes: string[];
    averageScore: number | null;
  };
  const summarize = (id: string) => server.graphql<{ summarizeMovieReviews: Summary }>(SUMMARY, { id });

  describe('summarizeMovieReviews', () => {
    it('Shawshank (id 1) has 8 reviews averaging 9.375, a favourable one-sentence summary and up to 5 themes', async () => {
      const { body } = await summarize('1');
      const summary = body.data!.summarizeMovieReviews;
      expect(summary.movieId).toBe('1');
      expect(summary.reviewCount).toBe(8);
      expect(summary.averageScore).toBe(9.375);
      expect(summary.summary).toMatch(/favourable/);
      expect(summary.summary).toContain('9.4');
      expect(
        summary
          .summary!.trim()
          .split(/[.!?](\s|$)/)
          .filter((s) => s && s.trim()).length,
      ).toBe(1);
      expect(summary.themes.length).toBeGreaterThan(0);
      expect(summary.themes.length).toBeLessThanOrEqual(5);
      expect(new Set(summary.themes).size).toBe(summary.themes.length);
      for (const theme of summary.themes) expect(['the', 'and', 'this', 'with']).not.toContain(theme);
    });

    it('a movie with no reviews gives count 0, null summary, no themes and null average', async () => {
      const { body } = await summarize(String(unreviewed.id));
      expect(body.data!.summarizeMovieReviews).toEqual({
        movieId: String(unreviewed.id),
        reviewCount: 0,
        summary: null,
        themes: [],
        averageScore: null,
      });
    });

    it('a movie with 1 or 2 reviews gives the average but no summary', async () => {
      const expectedScores = seed.reviews.filter((r) => r.movieId === fewReviews.id).map((r) => r.score);
      const { body } = await summarize(String(fewReviews.id));
      const summary = body.data!.summarizeMovieReviews;
      expect(summary.reviewCount).toBe(expectedScores.length);
      expect(summary.summary).toBeNull();
      expect(summary.averageScore).toBeCloseTo(
        expectedScores.reduce((a, b) => a + b, 0) / expectedScores.length,
      );
    });

    it('an unknown movie is NOT_FOUND with entityType Movie, and data is null (non-null field propagates)', async () => {
      const { body } = await summarize('999');
      expect(body.data).toBeNull();
      expect(body.errors?.[0]).toMatchObject({
        message: 'Entity Movie not found for id: 999',
        path: ['summarizeMovieReviews'],
        extensions: { classification: 'NOT_FOUND', entityType: 'Movie' },
      });
    });

    it('a malformed id is a BAD_REQUEST naming the argument', async () => {
      const response = await summarize('abc');
      expect(classificationOf(response)).toBe('BAD_REQUEST');
      expect(response.body.errors?.[0]?.extensions?.field).toBe('movieId');
    });

    it('a third review turns a two-review movie into a summarised one', async () => {
      const movie = seed.movies.find((m) => reviewCount(m.id) === 2)!;
      const { token } = await server.newUser();
      const created = await server.graphql(
        CREATE,
        {
          input: {
            subject: { movieId: String(movie.id) },
            score: 1,
            comment: 'Dreadful pacing, dreadful script',
          },
        },
        token,
      );
      expect(created.body.errors).toBeUndefined();
      const summary = (await summarize(String(movie.id))).body.data!.summarizeMovieReviews;
      expect(summary.reviewCount).toBe(3);
      expect(summary.summary).not.toBeNull();
      expect(summary.themes).toContain('dreadful');
    });
  });

  describe('createReview', () => {
    it('creates a review for the signed-in user, visible newest first on the movie', async () => {
      const { token, username } = await server.newUser();
      const created = await server.graphql<{
        createReview: { id: string; score: number; user: { username: string } };
      }>(CREATE, { input: { subject: { movieId: '2' }, score: 8, comment: 'Great' } }, token);
      expect(created.body.errors).toBeUndefined();
      expect(created.body.data!.createReview).toMatchObject({ score: 8, user: { username } });
      const movie = await server.graphql<{ movie: { reviews: { id: string }[]; reviewCount: number } }>(
        '{ movie(id: "2") { reviewCount reviews { id } } }',
      );
      expect(movie.body.data!.movie.reviews[0]!.id).toBe(created.body.data!.createReview.id);
      expect(movie.body.data!.movie.reviewCount).toBe(movie.body.data!.movie.reviews.length);
    });

    it('reviews a TV show through the tvShowId key', async () => {
      const { token } = await server.newUser();
      const created = await server.graphql(
        CREATE,
        { input: { subject: { tvShowId: '1' }, score: 9 } },
        token,
      );
      expect(created.body.errors).toBeUndefined();
    });

    it('a score of 11 is a BAD_REQUEST naming input.score and the range, and nothing is written', async () => {
      const { token } = await server.newUser();
      const before = await server.count('reviews');
      const response = await server.graphql(
        CREATE,
        { input: { subject: { movieId: '3' }, score: 11 } },
        token,
      );
      expect(response.body.data).toBeNull();
      expect(response.body.errors?.[0]).toMatchObject({
        extensions: { classification: 'BAD_REQUEST', field: 'input.score', constraint: 'range' },
      });
      expect(response.body.errors?.[0]?.message).toContain('between 1 and 10');
      expect(await server.count('reviews')).toBe(before);
    });

    it('a score of 0 and a comment over 2000 characters are rejected too', async () => {
      const { token } = await server.newUser();
      const zero = await server.graphql(CREATE, { input: { subject: { movieId: '3' }, score: 0 } }, token);
      expect(zero.body.errors?.[0]?.extensions).toMatchObject({ field: 'input.score' });
      const long = await server.graphql(
        CREATE,
        { input: { subject: { movieId: '3' }, score: 5, comment: 'x'.repeat(2001) } },
        token,
      );
      expect(long.body.errors?.[0]?.extensions).toMatchObject({
        classification: 'BAD_REQUEST',
        field: 'input.comment',
        constraint: 'size',
      });
    });

    it('a second review of the same title is BAD_REQUEST "You have already reviewed this title"', async () => {
      const { token } = await server.newUser();
      await server.graphql(CREATE, { input: { subject: { movieId: '4' }, score: 7 } }, token);
      const again = await server.graphql(CREATE, { input: { subject: { movieId: '4' }, score: 6 } }, token);
      expect(again.body.errors?.[0]).toMatchObject({
        message: 'You have already reviewed this title',
        extensions: { classification: 'BAD_REQUEST' },
      });
    });

    it('@oneOf: both keys, or one key with an explicit null, are rejected before anything runs', async () => {
      const { token } = await server.newUser();
      const before = await server.count('reviews');
      const both = await server.graphql(
        CREATE,
        { input: { subject: { movieId: '5', tvShowId: '1' }, score: 7 } },
        token,
      );
      expect(both.status).toBe(400);
      expect(classificationOf(both)).toBe('BAD_REQUEST');
      const explicitNull = await server.graphql(
        CREATE,
        { input: { subject: { movieId: '5', tvShowId: null }, score: 7 } },
        token,
      );
      expect(explicitNull.status).toBe(400);
      expect(classificationOf(explicitNull)).toBe('BAD_REQUEST');
      const none = await server.graphql(CREATE, { input: { subject: {}, score: 7 } }, token);
      expect(classificationOf(none)).toBe('BAD_REQUEST');
      expect(await server.count('reviews')).toBe(before);
    });

    it('anonymous callers get UNAUTHORIZED naming the operation', async () => {
      const response = await server.graphql(CREATE, { input: { subject: { movieId: '5' }, score: 7 } });
      expect(response.body.errors?.[0]).toMatchObject({
        message: 'Sign in to use createReview',
        extensions: { classification: 'UNAUTHORIZED' },
      });
    });

    it('an unknown title is NOT_FOUND with its entity type', async () => {
      const { token } = await server.newUser();
      const response = await server.graphql(
        CREATE,
        { input: { subject: { tvShowId: '999' }, score: 7 } },
        token,
      );
      expect(response.body.errors?.[0]?.extensions).toMatchObject({
        classification: 'NOT_FOUND',
        entityType: 'TvShow',
      });
    });
  });

  describe('deleteReview', () => {
    const DELETE = 'mutation ($id: ID!) { deleteReview(id: $id) }';
    const write = async (token: string, movieId: string) =>
      (
        await server.graphql<{ createReview: { id: string } }>(
          CREATE,
          { input: { subject: { movieId }, score: 6 } },
          token,
        )
      ).body.data!.createReview.id;

    it('the author may delete their own review', async () => {
      const { token } = await server.newUser();
      const id = await write(token, '6');
      expect((await server.graphql(DELETE, { id }, token)).body.data).toEqual({ deleteReview: true });
      expect(await server.count('reviews', `id = ${Number(id)}`)).toBe(0);
    });

    it('another user gets FORBIDDEN and the review stays; an admin may delete it', async () => {
      const author = await server.newUser();
      const other = await server.newUser();
      const id = await write(author.token, '7');
      const denied = await server.graphql(DELETE, { id }, other.token);
      expect(classificationOf(denied)).toBe('FORBIDDEN');
      expect(await server.count('reviews', `id = ${Number(id)}`)).toBe(1);
      const admin = await server.login('admin', 'admin123');
      expect((await server.graphql(DELETE, { id }, admin)).body.data).toEqual({ deleteReview: true });
    });

    it('an unknown review is NOT_FOUND', async () => {
      const { token } = await server.newUser();
      const response = await server.graphql(DELETE, { id: '99999' }, token);
      expect(response.body.errors?.[0]?.extensions).toMatchObject({
        classification: 'NOT_FOUND',
        entityType: 'Review',
      });
    });
  });
});
