/**
 * GraphiQL for browsers on GET /graphql, served from the project's own dependencies (no CDN): it opens on
 * working examples for this API, and its headers editor takes a bearer token for writes. A strict CSP
 * allows only our own scripts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import accepts from 'accepts';
import { Router } from 'express';

const require = createRequire(import.meta.url);

/** A file inside an installed package, found through its package.json (UMD builds are not exported). */
function packageFile(pkg: string, file: string): string {
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
}

/**
 * The files the GraphiQL page loads, by the name it asks for. Exported for the Docker build:
 * deploy/docker/slim-node-modules.mjs imports it from dist/ to keep only these files of their packages.
 * @public
 */
export const ASSETS: Record<string, { file: string; type: string }> = {
  'react.js': { file: packageFile('react', 'umd/react.production.min.js'), type: 'text/javascript' },
  'react-dom.js': {
    file: packageFile('react-dom', 'umd/react-dom.production.min.js'),
    type: 'text/javascript',
  },
  'graphiql.js': { file: packageFile('graphiql', 'graphiql.min.js'), type: 'text/javascript' },
  'graphiql.css': { file: packageFile('graphiql', 'graphiql.min.css'), type: 'text/css' },
};

/**
 * The tabs a first visit opens with: a query that runs anonymously as it stands, then examples with
 * variables. No Authorization header is pre-filled: a placeholder there turned every request, the schema
 * fetch included, into a 401.
 */
const DEFAULT_TABS = [
  {
    query: `# Welcome to moviedb-mcp. Press the run button
# (or Ctrl+Enter) to run this query. Reads are public:
# no token needed. The book icon opens the schema docs.
#
# Writes need a token: run the Login tab, copy
# data.login.token, then enter in Headers below
#   {"Authorization": "Bearer <the token>"}
# (or in a terminal: npx moviedb-mcp token user user123)
query RecommendForMood {
  recommendMoviesForMood(mood: HORROR) {
    id
    title
    rating
    genre
  }
}
`,
  },
  {
    query: `# Variables (in the Variables pane below) fill $filter and $size.
query SearchMovies($filter: MovieFilter, $size: Int) {
  movies(filter: $filter, size: $size, sort: { field: RATING, order: DESC }) {
    totalElements
    content {
      id
      title
      releaseYear
      rating
    }
  }
}
`,
    variables: JSON.stringify({ filter: { genre: 'DRAMA', minYear: 1990 }, size: 5 }, null, 2),
  },
  {
    query: `# Signs in as a seed user; the token goes into the Headers pane as
#   {"Authorization": "Bearer <token>"}
mutation Login($input: LoginInput!) {
  login(input: $input) {
    token
    user {
      username
    }
  }
}
`,
    variables: JSON.stringify({ input: { username: 'user', password: 'user123' } }, null, 2),
  },
  {
    query: `# Needs a token in the Headers pane (see the Login tab). Adding the same movie twice
# answers BAD_REQUEST "This movie is already in your watch list".
mutation AddToWatchlist($subject: WatchlistSubjectInput!) {
  addToWatchlist(subject: $subject, status: WANT_TO_WATCH) {
    id
    status
    content {
      title
    }
  }
}
`,
    variables: JSON.stringify({ subject: { movieId: '3' } }, null, 2),
  },
];

const INIT_SCRIPT = `
const fetcher = GraphiQL.createFetcher({ url: window.location.pathname });
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, {
    fetcher,
    isHeadersEditorEnabled: true,
    defaultEditorToolsVisibility: 'variables',
    defaultTabs: ${JSON.stringify(DEFAULT_TABS)},
  }),
);
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>moviedb-mcp GraphiQL</title>
    <link rel="stylesheet" href="/graphiql/graphiql.css" />
    <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
  </head>
  <body>
    <div id="graphiql">Loading GraphiQL…</div>
    <script src="/graphiql/react.js"></script>
    <script src="/graphiql/react-dom.js"></script>
    <script src="/graphiql/graphiql.js"></script>
    <script src="/graphiql/init.js"></script>
  </body>
</html>`;

// frame-ancestors: another site must not frame the editor (it opens on a Login tab and runs whatever a
// lured click sends, with the headers the user typed); X-Frame-Options says the same to older browsers.
const CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'";

/** A browser navigation: it prefers HTML and is not itself a GraphQL GET request. */
export function wantsGraphiQL(req: IncomingMessage): boolean {
  if (req.method !== 'GET') return false;
  const query = req.url?.indexOf('?') ?? -1;
  if (query !== -1 && new URLSearchParams(req.url!.slice(query + 1)).has('query')) return false;
  return (
    accepts(req).type(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html'
  );
}

export function graphiqlAssets(): Router {
  const router = Router();
  router.get('/graphiql/init.js', (_req, res) => {
    res.type('text/javascript').set('Cache-Control', 'no-cache').send(INIT_SCRIPT);
  });
  router.get('/graphiql/:asset', (req, res, next) => {
    const asset = ASSETS[req.params.asset ?? ''];
    if (!asset) return next();
    res.type(asset.type).set('Cache-Control', 'public, max-age=86400').sendFile(asset.file);
  });
  return router;
}

export function sendGraphiQL(res: ServerResponse): void {
  res
    .writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': CSP,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Content-Length': Buffer.byteLength(PAGE),
    })
    .end(PAGE);
}
