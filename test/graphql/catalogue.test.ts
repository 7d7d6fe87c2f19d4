import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classificationOf, dialects, startTestServer, type TestServer } from '../helpers/server.js';
import { seed } from '../helpers/seed.js';

const MOVIES = `query ($filter: MovieFilter, $page: Int, $size: Int, $sort: MovieSort) {
  movies(filter: $filter, page: $page, size: $size, sort: $sort) {
    content { id title releaseYear rating runtime genre }
    totalElements totalPages currentPage size hasNext hasPrevious
  }
}`;
type MoviePage = {
  movies: {
    content: {
      id: string;
      title: string;
      releaseYear: number;
      rating: number | null;
      runtime: number | null;
      genre: string;
    }[];
    totalElements: number;
    totalPages: number;
    currentPage: number;
    size: number;
    hasNext: boolean;
    hasPrevious: boolean;
  };
};

describe.each(dialects)('catalogue reads on %s', (dialect) => {
  let server: TestServer;
  let queries: string[] = [];
  beforeAll(async () => {
    server = await startTestServer(dialect, { onQuery: (sql) => queries.push(sql) });
  });
  afterAll(() => server.stop());

  it('movie(id) returns the seed movie with its directors, cast and reviews', async () => {
    const response = await server.graphql(
      '{ movie(id: "1") { id title releaseYear genre rating runtime tmdbId directors { name } cast { characterName person { name } movie { id } } reviewCount } }',
    );
    expect(response.body.data).toEqual({
      movie: {
        id: '1',
        title: 'The Shawshank Redemption',
        releaseYear: 1994,
        genre: 'DRAMA',
        rating: 9.3,
        runtime: 142,
        tmdbId: 278,
        directors: [{ name: 'Frank Darabont' }],
        cast: [
          { characterName: 'Andy Dufresne', person: { name: 'Tim Robbins' }, movie: { id: '1' } },
          { characterName: "Ellis 'Red' Redding", person: { name: 'Morgan Freeman' }, movie: { id: '1' } },
        ],
        reviewCount: 8,
      },
    });
  });

  it('movie(id) of an unknown id is NOT_FOUND "Entity Movie not found for id: 999" with data.movie null', async () => {
    const response = await server.graphql('{ movie(id: "999") { id } }');
    expect(response.body.data).toEqual({ movie: null });
    expect(response.body.errors?.[0]).toMatchObject({
      message: 'Entity Movie not found for id: 999',
      path: ['movie'],
      extensions: { classification: 'NOT_FOUND', entityType: 'Movie' },
    });
  });

  it('movies pages by title with correct page arithmetic', async () => {
    const first = (await server.graphql<MoviePage>(MOVIES, { size: 20 })).body.data!.movies;
    expect(first).toMatchObject({
      totalElements: 71,
      totalPages: 4,
      currentPage: 0,
      size: 20,
      hasNext: true,
      hasPrevious: false,
    });
    const last = (await server.graphql<MoviePage>(MOVIES, { size: 20, page: 3 })).body.data!.movies;
    expect(last.content).toHaveLength(11);
    expect(last).toMatchObject({ hasNext: false, hasPrevious: true });
    const titles = first.content.map((m) => m.title.toLowerCase());
    expect(titles).toEqual([...titles].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const beyond = (await server.graphql<MoviePage>(MOVIES, { size: 20, page: 9 })).body.data!.movies;
    expect(beyond.content).toEqual([]);
  });

  it('movies filters by genre, rating, years and title text, case-insensitively and literally', async () => {
    const filter = { genre: 'SCIFI', minRating: 8, maxYear: 2000 };
    const page = (await server.graphql<MoviePage>(MOVIES, { filter, size: 100 })).body.data!.movies;
    const expected = seed.movies.filter(
      (m) => m.genre === 'SCIFI' && (m.rating ?? -1) >= 8 && m.releaseYear <= 2000,
    );
    expect(page.totalElements).toBe(expected.length);
    expect(page.content.map((m) => Number(m.id)).sort((a, b) => a - b)).toEqual(
      expected.map((m) => m.id).sort((a, b) => a - b),
    );
    const text = (await server.graphql<MoviePage>(MOVIES, { filter: { titleContains: 'GODFATHER' } })).body
      .data!.movies;
    expect(text.content.map((m) => m.title)).toEqual([
      'The Godfather',
      'The Godfather Part II',
      'The Godfather Part III',
    ]);
    const wildcard = (await server.graphql<MoviePage>(MOVIES, { filter: { titleContains: '%' } })).body.data!
      .movies;
    expect(wildcard.totalElements).toBe(seed.movies.filter((m) => m.title.includes('%')).length);
  });

  it('movies sorts by rating descending with id breaking ties, and by runtime with unknowns last', async () => {
    const byRating = (
      await server.graphql<MoviePage>(MOVIES, { size: 100, sort: { field: 'RATING', order: 'DESC' } })
    ).body.data!.movies.content;
    const expected = [...seed.movies]
      .sort((a, b) => (b.rating ?? -1) - (a.rating ?? -1) || a.id - b.id)
      .map((m) => String(m.id));
    expect(byRating.map((m) => m.id)).toEqual(expected);
    const byYear = (await server.graphql<MoviePage>(MOVIES, { size: 5, sort: { field: 'RELEASE_YEAR' } }))
      .body.data!.movies.content;
    const years = byYear.map((m) => m.releaseYear);
    expect(years).toEqual([...years].sort((a, b) => a - b));
  });

  it('page size 0 and 101 and a negative page are BAD_REQUEST naming the argument', async () => {
    for (const [variables, field] of [
      [{ size: 0 }, 'size'],
      [{ size: 101 }, 'size'],
      [{ page: -1 }, 'page'],
    ] as const) {
      const response = await server.graphql(MOVIES, variables);
      expect(response.body.errors?.[0]?.extensions).toMatchObject({
        classification: 'BAD_REQUEST',
        field,
        constraint: 'range',
      });
    }
  });

  it('a page of 100 movies with directors, cast and reviews takes a handful of queries, not hundreds', async () => {
    queries = [];
    const response = await server.graphql(
      '{ movies(size: 100) { content { title directors { name directedMovies { title } } cast { characterName person { name } } reviews { score user { username } } reviewCount } } }',
    );
    expect(response.body.errors).toBeUndefined();
    expect(queries.length).toBeLessThanOrEqual(12);
  });

  it('moviesByIds returns movies in order, nulls for unknown ids plus one NOT_FOUND naming them', async () => {
    const response = await server.graphql('{ moviesByIds(ids: ["2", "998", "1", "999"]) { id } }');
    expect(response.body.data).toEqual({ moviesByIds: [{ id: '2' }, null, { id: '1' }, null] });
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors?.[0]).toMatchObject({
      extensions: { classification: 'NOT_FOUND', entityType: 'Movie' },
    });
    expect(response.body.errors?.[0]?.message).toContain('998');
    expect(response.body.errors?.[0]?.message).toContain('999');
  });

  it('search finds movies, people and TV shows by text, telling them apart by __typename', async () => {
    const response = await server.graphql<{
      search: { __typename: string; title?: string; name?: string }[];
    }>(
      '{ search(query: "the") { __typename ... on Movie { title } ... on Person { name } ... on TvShow { title } } }',
    );
    const results = response.body.data!.search;
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(50);
    const kinds = results.map((r) => r.__typename);
    // Movies first, then people, then TV shows.
    expect(kinds).toEqual(
      [...kinds].sort(
        (a, b) => ['Movie', 'Person', 'TvShow'].indexOf(a) - ['Movie', 'Person', 'TvShow'].indexOf(b),
      ),
    );
    const friends = await server.graphql<{ search: { __typename: string }[] }>(
      '{ search(query: "friends") { __typename ... on TvShow { title } } }',
    );
    expect(friends.body.data!.search).toContainEqual({ __typename: 'TvShow', title: 'Friends' });
    const nolan = await server.graphql(
      '{ search(query: "NOLAN") { ... on Person { name directedMovies { title } } } }',
    );
    expect(JSON.stringify(nolan.body.data)).toContain('Christopher Nolan');
    const empty = await server.graphql('{ search(query: "") { __typename } }');
    expect(classificationOf(empty)).toBe('BAD_REQUEST');
  });

  it('person, people, tvShow and tvShows answer with their relations', async () => {
    const person = await server.graphql<{ person: { name: string; directedMovies: { title: string }[] } }>(
      '{ person(id: "1") { name birthYear countryCode directedMovies { title } movieCastCredits { id } createdShows { title } tvShowCastCredits { id } } }',
    );
    expect(person.body.data!.person.name).toBe('Christopher Nolan');
    expect(person.body.data!.person.directedMovies.length).toBeGreaterThan(0);
    const people = await server.graphql<{ people: { totalElements: number; content: unknown[] } }>(
      '{ people(size: 5) { totalElements content { name } } }',
    );
    expect(people.body.data!.people.totalElements).toBe(173);
    expect(people.body.data!.people.content).toHaveLength(5);
    const show = await server.graphql<{
      tvShow: { title: string; creators: unknown[]; episodes: { seasonNumber: number }[] };
    }>(
      '{ tvShow(id: "1") { title startYear endYear seasons creators { name } cast { characterName person { name } tvShow { id } } episodes { seasonNumber episodeNumber title runtime airYear } reviews { score } } }',
    );
    expect(show.body.data!.tvShow.title).toBe('Friends');
    expect(show.body.data!.tvShow.creators).toHaveLength(2);
    expect(show.body.data!.tvShow.episodes.length).toBeGreaterThan(0);
    const shows = await server.graphql('{ tvShows { totalElements content { title } } }');
    expect(shows.body.data).toMatchObject({ tvShows: { totalElements: seed.tvShows.length } });
    for (const query of ['{ person(id: "9999") { id } }', '{ tvShow(id: "9999") { id } }']) {
      expect(classificationOf(await server.graphql(query))).toBe('NOT_FOUND');
    }
  });
});
