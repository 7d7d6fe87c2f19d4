import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { authRuleOf } from '../../src/graphql/auth-directives.js';
import { createExecutor } from '../../src/graphql/executor.js';
import { SCHEMA_DIR, buildSchema } from '../../src/graphql/schema.js';
import { loadOperations } from '../../src/operations/load-operations.js';

const schema = buildSchema();

/** Builds the schema from a copy of schema/ with one file's text changed. */
function buildEdited(file: string, edit: (sdl: string) => string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'moviedb-schema-'));
  try {
    cpSync(SCHEMA_DIR, dir, { recursive: true });
    const target = path.join(dir, file);
    writeFileSync(target, edit(readFileSync(target, 'utf8')));
    return buildSchema(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('authorization rules declared in the schema', () => {
  it('every mutation but register and login needs sign-in, so a new write cannot ship open by accident', () => {
    const open = Object.values(schema.getMutationType()!.getFields())
      .filter((field) => !authRuleOf(schema, field)?.requires)
      .map((field) => field.name);
    expect(open.sort()).toEqual(['login', 'register']);
  });

  it('each curated tool’s scopes are derived from the fields its operation reaches', () => {
    const executor = createExecutor(schema, { maxDepth: 10, maxCost: 50000, maxFieldAliases: 15 }, () => {});
    const scopes = Object.fromEntries(
      loadOperations(executor, path.resolve(SCHEMA_DIR, '../operations')).map((op) => [
        op.toolName,
        op.requiredScopes,
      ]),
    );
    expect(scopes).toEqual({
      addToWatchlist: ['watchlist:write'],
      createReview: ['reviews:write'],
      getMovie: ['movies:read'],
      myWatchlist: ['watchlist:read'],
      recommendMoviesForMood: ['movies:read'],
      removeFromWatchlist: ['watchlist:write'],
      searchMovies: ['movies:read'],
      setWatchStatus: ['watchlist:write'],
      summarizeMovieReviews: ['reviews:read'],
    });
  });

  it('an unknown scope or @selfOrAdmin outside User stops the schema build with a readable message', () => {
    expect(() =>
      buildEdited('watchlist.graphql', (sdl) => sdl.replace('"watchlist:read"', '"watchlist:raed"')),
    ).toThrow(/Query\.watchlist: unknown scope "watchlist:raed"/);
    expect(() =>
      buildEdited('reviews.graphql', (sdl) =>
        sdl.replace('comment: String\n', 'comment: String @selfOrAdmin\n'),
      ),
    ).toThrow(/Review\.comment: @selfOrAdmin applies to fields of User only/);
  });
});
