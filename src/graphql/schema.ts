/** Builds the executable schema from the SDL files in schema/ and the resolvers. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { accountResolvers } from './resolvers/accounts.js';
import { adminResolvers } from './resolvers/admin.js';
import { catalogueResolvers } from './resolvers/catalogue.js';
import { reviewResolvers } from './resolvers/reviews.js';
import { watchlistResolvers } from './resolvers/watchlist.js';
import { DateTimeScalar } from './scalars.js';
import { applyAuthDirectives } from './auth-directives.js';
import { applyNullArgumentDefaults } from './null-argument-defaults.js';
import { applyStorableStrings } from './storable-strings.js';
import { applyValidationDirectives } from './validation-directives.js';

/** schema/ at the project root, found relative to this file from both src/ and dist/. */
export const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schema');

function loadTypeDefs(dir = SCHEMA_DIR): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => readFileSync(path.join(dir, file), 'utf8'));
}

export function buildSchema(dir = SCHEMA_DIR): GraphQLSchema {
  const schema = makeExecutableSchema({
    typeDefs: loadTypeDefs(dir),
    resolvers: [
      { DateTime: DateTimeScalar },
      catalogueResolvers,
      accountResolvers,
      reviewResolvers,
      watchlistResolvers,
      adminResolvers,
    ],
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
  // The last applied runs first. @auth is outermost, so a caller who may not use a field learns nothing
  // from argument checks; then nulls become defaults, then strings and directive bounds are checked.
  return applyAuthDirectives(
    applyNullArgumentDefaults(applyStorableStrings(applyValidationDirectives(schema))),
  );
}
