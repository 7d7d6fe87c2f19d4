import {
  BAD_NUMBERS,
  graphqlPost,
  HOSTILE_STRINGS,
  type HostileCase,
  literal,
  mcpPost,
  type SessionRef,
  toolCall,
} from './shared.js';

/** Hostile strings where the stores and the search see them: arguments, input fields, tool arguments. */
export function stringCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  HOSTILE_STRINGS.forEach((text, i) => {
    const tag = `string #${i}`;
    const echoes = [text];
    const sinks: Array<[string, string, Record<string, unknown>]> = [
      [
        'search',
        'query ($q: String!) { search(query: $q) { __typename ... on Movie { id title } } }',
        { q: text },
      ],
      [
        'titleContains',
        'query ($q: String) { movies(filter: { titleContains: $q }) { totalElements content { id } } }',
        { q: text },
      ],
      ['movie id', 'query ($q: ID!) { movie(id: $q) { title } }', { q: text }],
      ['moviesByIds', 'query ($q: ID!) { moviesByIds(ids: [$q, "1"]) { id } }', { q: text }],
      ['summarize', 'query ($q: ID!) { summarizeMovieReviews(movieId: $q) { reviewCount } }', { q: text }],
      [
        'login',
        'mutation ($q: String!) { login(input: { username: $q, password: $q }) { token } }',
        { q: text },
      ],
      [
        'register',
        'mutation ($q: String!) { register(input: { username: $q, email: "h@example.com", password: "secret123" }) { token } }',
        { q: text },
      ],
    ];
    for (const [sink, query, variables] of sinks) {
      cases.push(graphqlPost('strings: /graphql variables', `${sink} ${tag}`, query, variables, { echoes }));
    }
    cases.push(
      graphqlPost(
        'strings: /graphql literals',
        `search literal ${tag}`,
        `{ search(query: ${JSON.stringify(text)}) { __typename } }`,
        undefined,
        { echoes },
      ),
    );
    const tools: Array<[string, unknown, SessionRef]> = [
      ['searchMovies', { filter: { titleContains: text } }, 'anonymous'],
      ['getMovie', { id: text }, 'anonymous'],
      ['summarizeMovieReviews', { movieId: text }, 'anonymous'],
      ['recommendMoviesForMood', { mood: text }, 'anonymous'],
      ['addToWatchlist', { subject: { movieId: text } }, 'user'],
      ['createReview', { input: { subject: { movieId: '3' }, score: 5, comment: text } }, 'user'],
    ];
    for (const [tool, args, session] of tools) {
      cases.push(
        mcpPost('strings: tool arguments', `${tool} ${tag}`, toolCall(tool, args), { session, echoes }),
      );
    }
  });
  return cases;
}

/** Page numbers and sizes that are not: null, negative, huge, fractional, of the wrong type. */
export function paginationCases(): HostileCase[] {
  const cases: HostileCase[] = [];
  for (const field of ['movies', 'people', 'tvShows']) {
    BAD_NUMBERS.forEach((value, i) => {
      const shown = `${field} ${JSON.stringify(value)} #${i}`;
      cases.push(
        graphqlPost(
          'pagination',
          `size literal ${shown}`,
          `{ ${field}(size: ${literal(value)}) { size totalElements content { id } } }`,
        ),
        graphqlPost(
          'pagination',
          `size variable ${shown}`,
          `query ($s: Int) { ${field}(size: $s) { size content { id } } }`,
          { s: value },
        ),
        graphqlPost(
          'pagination',
          `page variable ${shown}`,
          `query ($p: Int) { ${field}(page: $p) { currentPage content { id } } }`,
          { p: value },
        ),
      );
    });
  }
  BAD_NUMBERS.forEach((value, i) => {
    cases.push(
      mcpPost(
        'pagination',
        `searchMovies size ${JSON.stringify(value)} #${i}`,
        toolCall('searchMovies', { size: value }),
      ),
      mcpPost(
        'pagination',
        `searchMovies page ${JSON.stringify(value)} #${i}`,
        toolCall('searchMovies', { page: value }),
      ),
    );
  });
  return cases;
}
