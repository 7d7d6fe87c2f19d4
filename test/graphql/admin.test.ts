import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classificationOf, dialects, startTestServer, type TestServer } from '../helpers/server.js';

const CREATE = `mutation ($input: CreateMovieInput!) {
  createMovie(input: $input) { id title releaseYear genre rating runtime directors { id name } }
}`;
const UPDATE =
  'mutation ($id: ID!, $input: UpdateMovieInput!) { updateMovie(id: $id, input: $input) { id title rating directors { id } } }';
const DELETE = 'mutation ($id: ID!) { deleteMovie(id: $id) }';

describe.each(dialects)('catalogue writes on %s', (dialect) => {
  let server: TestServer;
  let admin: string;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await server.login('admin', 'admin123');
  });
  afterAll(() => server.stop());

  it('an admin creates, updates and deletes a movie', async () => {
    const created = await server.graphql<{ createMovie: { id: string } }>(
      CREATE,
      {
        input: {
          title: 'Test Movie',
          releaseYear: 2020,
          genre: 'DRAMA',
          rating: 7.2,
          runtime: 100,
          directorIds: ['1'],
        },
      },
      admin,
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data!.createMovie).toMatchObject({
      title: 'Test Movie',
      releaseYear: 2020,
      directors: [{ id: '1', name: 'Christopher Nolan' }],
    });
    const id = created.body.data!.createMovie.id;
    expect(Number(id)).toBeGreaterThan(71);

    const updated = await server.graphql(
      UPDATE,
      { id, input: { title: 'Renamed', rating: null, directorIds: [] } },
      admin,
    );
    expect(updated.body.data).toEqual({ updateMovie: { id, title: 'Renamed', rating: null, directors: [] } });

    expect((await server.graphql(DELETE, { id }, admin)).body.data).toEqual({ deleteMovie: true });
    const gone = await server.graphql('query ($id: ID!) { movie(id: $id) { id } }', { id });
    expect(classificationOf(gone)).toBe('NOT_FOUND');
  });

  it('a signed-in non-admin gets FORBIDDEN and an anonymous caller UNAUTHORIZED; nothing is written', async () => {
    const { token } = await server.newUser();
    const before = await server.count('movies');
    const asUser = await server.graphql(CREATE, { input: { title: 'Nope', releaseYear: 2020 } }, token);
    expect(classificationOf(asUser)).toBe('FORBIDDEN');
    const anonymous = await server.graphql(CREATE, { input: { title: 'Nope', releaseYear: 2020 } });
    expect(classificationOf(anonymous)).toBe('UNAUTHORIZED');
    expect(classificationOf(await server.graphql(DELETE, { id: '1' }, token))).toBe('FORBIDDEN');
    expect(classificationOf(await server.graphql(UPDATE, { id: '1', input: { title: 'x' } }, token))).toBe(
      'FORBIDDEN',
    );
    expect(await server.count('movies')).toBe(before);
  });

  it('directive bounds apply to catalogue input: year 1800, empty title, rating 11', async () => {
    const cases = [
      [{ title: 'Old', releaseYear: 1800 }, 'input.releaseYear'],
      [{ title: '', releaseYear: 2000 }, 'input.title'],
      [{ title: 'x'.repeat(201), releaseYear: 2000 }, 'input.title'],
      [{ title: 'Rated', releaseYear: 2000, rating: 11 }, 'input.rating'],
    ] as const;
    for (const [input, field] of cases) {
      const response = await server.graphql(CREATE, { input }, admin);
      expect(response.body.errors?.[0]?.extensions).toMatchObject({ classification: 'BAD_REQUEST', field });
    }
  });

  it('unknown movie or director ids are NOT_FOUND', async () => {
    expect(classificationOf(await server.graphql(UPDATE, { id: '9999', input: { title: 'x' } }, admin))).toBe(
      'NOT_FOUND',
    );
    expect(classificationOf(await server.graphql(DELETE, { id: '9999' }, admin))).toBe('NOT_FOUND');
    const director = await server.graphql(
      CREATE,
      { input: { title: 'x', releaseYear: 2000, directorIds: ['9999'] } },
      admin,
    );
    expect(director.body.errors?.[0]?.extensions).toMatchObject({
      classification: 'NOT_FOUND',
      entityType: 'Person',
    });
  });
});
