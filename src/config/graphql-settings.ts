import { z } from 'zod';
import { bool, int, section, setting } from './setting.js';

export const graphqlSettings = section(
  'GraphQL',
  z.object({
    maxDepth: setting(
      'GRAPHQL_MAX_DEPTH',
      int(2, 50, 10),
      'Deepest selection nesting a GraphQL operation may have.',
    ),
    maxCost: setting(
      'GRAPHQL_MAX_COST',
      int(10, 1000000, 50000),
      'Largest estimated cost (fields weighted by list and page sizes) of one GraphQL operation.',
    ),
    maxFieldAliases: setting(
      'GRAPHQL_MAX_FIELD_ALIASES',
      int(1, 1000, 15),
      'Most response names (aliases) one field may have in one selection set, fragments included.',
    ),
    graphiql: setting(
      'GRAPHIQL',
      bool().default(true),
      'Serve GraphiQL to browsers on GET /graphql (`true` or `false`).',
    ),
    compiler: z.object({
      jit: setting(
        'GRAPHQL_JIT',
        z.enum(['repeated', 'curated', 'always', 'off']).default('repeated'),
        "Run operations compiled by graphql-jit where that is exact: curated operations on their first run; `repeated` also a client's document from its second run (within the two bounds below), `curated` only curated ones, `always` everything on its first run (tests), `off` nothing.",
      ),
      maxFields: setting(
        'GRAPHQL_JIT_MAX_FIELDS',
        int(0, 100000, 200),
        'Largest expanded field count (fragment spreads counted out) of a client document that is compiled.',
      ),
      fieldsPerMinute: setting(
        'GRAPHQL_JIT_FIELDS_PER_MINUTE',
        int(0, 100000000, 1000),
        'Expanded fields of client documents one principal may have compiled per minute (the process: ten times it).',
      ),
    }),
  }),
);
