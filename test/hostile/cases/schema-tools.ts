import { doublingChain, type HostileCase, mcpPost, repeat, type SessionRef, toolCall } from './shared.js';

/**
 * The schema tools (the corpus server runs MCP_SCHEMA_TOOLS=read), as the seed user: fragment bombs,
 * introspection abuse, huge and odd variables, aliases, mutations, and bad arguments; anonymously too.
 */
export function schemaToolCases(): HostileCase[] {
  const execute = (name: string, args: unknown, session: SessionRef = 'user') =>
    mcpPost('schema tools', `executeGraphQL ${name} (${session})`, toolCall('executeGraphQL', args), {
      session,
    });
  const cases: HostileCase[] = [];
  for (const levels of [10, 24, 30]) {
    const bomb = `{ movie(id: "1") { ...F${levels} } }\n${doublingChain(levels, 'Movie', 'title')}`;
    cases.push(
      execute(`fragment bomb ${levels}`, { query: bomb }),
      mcpPost(
        'schema tools',
        `validateGraphQL fragment bomb ${levels}`,
        toolCall('validateGraphQL', { query: bomb }),
        {
          session: 'user',
        },
      ),
    );
  }
  cases.push(
    execute('introspection bomb', {
      query:
        '{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }',
    }),
    execute('whole introspection', {
      query:
        '{ __schema { types { name description fields { name description args { name description } } } } }',
    }),
    execute('__type loop', {
      query: `{ ${repeat(50, (i) => `t${i}: __type(name: "Movie") { name fields { name } }`)} }`,
    }),
    execute('400 aliases', {
      query: `{ ${repeat(400, (i) => `a${i}: search(query: "a") { __typename }`)} }`,
    }),
    execute('16 aliased movies', { query: `{ ${repeat(16, (i) => `a${i}: movie(id: "1") { title }`)} }` }),
    execute('huge variables', {
      query: 'query ($q: String!) { search(query: $q) { __typename } }',
      variables: { q: 'y'.repeat(90_000) },
    }),
    execute('10,000 variables', {
      query: '{ __typename }',
      variables: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`v${i}`, i])),
    }),
    execute('variables of the wrong type', {
      query: 'query ($id: ID!) { movie(id: $id) { title } }',
      variables: { id: { a: [1] } },
    }),
    execute('variables not an object', { query: '{ __typename }', variables: [1, 2] }),
    execute('a mutation in read mode', {
      query: 'mutation { addToWatchlist(subject: { movieId: "3" }) { id } }',
    }),
    execute('200 logins', {
      query: `mutation { ${repeat(200, (i) => `a${i}: login(input: { username: "user", password: "nope${i}" }) { token }`)} }`,
    }),
    execute('a subscription', { query: 'subscription { movie }' }),
    execute('no operation named so', { query: '{ __typename }', operationName: 'Nope' }),
    execute('two operations, no name', { query: 'query A { __typename } query B { __typename }' }),
    execute('syntax error', { query: '{ movie(id: "1") { title ' }),
    execute('empty document', { query: '' }),
    execute('offset without a list', { query: '{ movie(id: "1") { title } }', offset: 5 }),
    execute('negative offset', { query: '{ search(query: "a") { __typename } }', offset: -1 }),
    execute('6,000 tokens', { query: `{ movie(id: "1") { ${repeat(6000, () => 'title')} } }` }),
    execute('nested 2,400 deep', {
      query: `{ moviesByIds(ids: ${'['.repeat(2400)}"1"${']'.repeat(2400)}) { id } }`,
    }),
    execute("another user's e-mail", { query: '{ movie(id: "1") { reviews { user { email role } } } }' }),
    execute('anonymous', { query: '{ movie(id: "1") { title } }' }, 'anonymous'),
    execute('unknown argument', { query: '{ __typename }', extra: true }),
    mcpPost('schema tools', 'searchSchema empty', toolCall('searchSchema', { query: '' }), {
      session: 'user',
    }),
    mcpPost(
      'schema tools',
      'searchSchema everything',
      toolCall('searchSchema', { query: repeat(40, (i) => `a${i} movie the`) }),
      {
        session: 'user',
      },
    ),
    mcpPost(
      'schema tools',
      'searchSchema punctuation',
      toolCall('searchSchema', { query: '%_\\\'"{}[]()' }),
      {
        session: 'user',
      },
    ),
    mcpPost('schema tools', 'searchSchema not a string', toolCall('searchSchema', { query: ['director'] }), {
      session: 'user',
    }),
  );
  return cases;
}
