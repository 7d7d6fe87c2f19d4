// What every real-client driver does, the same way for each: sign in as its own seed user, connect,
// list, convert every tool's schema the framework's own way, make the calls a signed-in user makes, and
// two calls that must come back as tool errors whose text (what the framework hands a model) starts with
// the classification and whether to retry. Each driver prints one line, `RESULT {json}`, which
// .ci/clients/table.mjs turns into the table. The drivers run from a copy beside the pinned clients
// (.ci/real-clients.sh), so their imports resolve to those, never to the project's node_modules.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The tools a signed-in user is listed (README, The tools): every one must be listed and converted. */
export const SIGNED_IN_TOOLS = [
  'recommendMoviesForMood',
  'summarizeMovieReviews',
  'searchMovies',
  'getMovie',
  'myWatchlist',
  'addToWatchlist',
  'setWatchStatus',
  'removeFromWatchlist',
  'createReview',
];

// Movie 5 is in no seed user's watch list and has no review by the users the drivers sign in as.
const MOVIE = '5';

/**
 * The calls that must succeed, in order; `args` may read what an earlier call answered (the entry id
 * addToWatchlist created, found in its text as every framework shows it).
 */
const CALLS = [
  { name: 'searchMovies', args: () => ({ filter: { titleContains: 'the' }, size: 3 }) },
  { name: 'getMovie', args: () => ({ id: MOVIE }) },
  { name: 'recommendMoviesForMood', args: () => ({ mood: 'COMFORT' }) },
  { name: 'summarizeMovieReviews', args: () => ({ movieId: '1' }) },
  { name: 'addToWatchlist', args: () => ({ subject: { movieId: MOVIE } }) },
  { name: 'myWatchlist', args: () => ({}) },
  { name: 'setWatchStatus', args: (seen) => ({ itemId: entryIdIn(seen.addToWatchlist), status: 'WATCHED' }) },
  {
    name: 'createReview',
    args: () => ({
      input: { subject: { movieId: MOVIE }, score: 8, comment: 'Seen through a real client.' },
    }),
  },
];

/** Calls that must fail as tool errors, and how the text a model reads must begin (docs/errors.md). */
const ERRORS = [
  { name: 'getMovie', args: { id: '99999' }, starts: 'NOT_FOUND (not retryable): no movie with id 99999' },
  { name: 'addToWatchlist', args: { subject: { movieId: MOVIE } }, starts: 'BAD_REQUEST (not retryable):' },
];

/**
 * The new entry's id, as a model reads it: the text block says "... as entry id 6 (WANT_TO_WATCH)."
 * (tools.json); a client that shows structuredContent instead (LangChain, as escaped JSON) has it as the
 * first "id".
 */
function entryIdIn(text) {
  const id = (/entry id (\d+)/.exec(text ?? '') ?? /\\?"id\\?":\s*\\?"(\d+)/.exec(text ?? ''))?.[1];
  if (!id) throw new Error(`no entry id in the addToWatchlist answer: ${String(text).slice(0, 200)}`);
  return id;
}

/** The version of a package as installed beside the drivers (their folder's parent holds node_modules). */
export function installedVersion(pkg) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return JSON.parse(readFileSync(path.join(here, '..', 'node_modules', pkg, 'package.json'), 'utf8')).version;
}

/** A bearer token for a seed user, from the login mutation (docs/graphql.md). */
export async function login(base, username, password = 'password') {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation($u: String!, $p: String!) { login(input: {username: $u, password: $p}) { token } }',
      variables: { u: username, p: password },
    }),
  });
  const body = await res.json();
  const token = body?.data?.login?.token;
  if (!token) throw new Error(`login as ${username} failed: ${JSON.stringify(body)}`);
  return token;
}

/** A failure in one line; fetch's own cause (a reset, a refused connection) is where the reason is. */
const short = (error) => {
  const cause = error?.cause ? ` (${error.cause.code ?? ''} ${error.cause.message ?? error.cause})` : '';
  return `${String(error?.message ?? error).split('\n')[0]}${cause}`.slice(0, 300);
};

/**
 * Runs the checks through one client and prints its RESULT line. `open()` connects and returns the
 * client's face: `list()` the tools as the framework holds them (`[{name, ...}]`), `convert(tool)` the
 * framework's own schema conversion (throws when it cannot), `call(name, args)` → `{isError, text}`
 * where `text` is what the framework gives a model, `close()`, and optionally a `note` for the table.
 */
export async function runDriver(row, open) {
  const result = {
    ...row,
    connected: false,
    listed: 0,
    converted: 0,
    missing: [],
    ok: 0,
    tried: CALLS.length,
    errorsSurfaced: 0,
    errorsTried: ERRORS.length,
    problems: [],
  };
  let face;
  try {
    face = await open();
    result.connected = true;
    if (face.note) result.note = face.note;
    const tools = await face.list();
    result.listed = tools.length;
    const names = new Set(tools.map((tool) => tool.name));
    result.missing = SIGNED_IN_TOOLS.filter((name) => !names.has(name));
    for (const tool of tools) {
      try {
        await face.convert(tool);
        result.converted += 1;
      } catch (error) {
        result.problems.push(`convert ${tool.name}: ${short(error)}`);
      }
    }
    const seen = {};
    for (const call of CALLS) {
      try {
        const answer = await face.call(call.name, call.args(seen));
        seen[call.name] = answer.text;
        if (!answer.isError && answer.text) result.ok += 1;
        else result.problems.push(`${call.name}: ${answer.text.slice(0, 300)}`);
      } catch (error) {
        result.problems.push(`${call.name}: ${short(error)}`);
      }
    }
    for (const expected of ERRORS) {
      try {
        const answer = await face.call(expected.name, expected.args);
        if (answer.isError && answer.text.startsWith(expected.starts)) result.errorsSurfaced += 1;
        else
          result.problems.push(
            `${expected.name} error: ${answer.isError ? '' : 'not an error: '}${answer.text.slice(0, 300)}`,
          );
      } catch (error) {
        result.problems.push(`${expected.name} error: ${short(error)}`);
      }
    }
  } catch (error) {
    result.problems.push(short(error));
  } finally {
    await face?.close().catch((error) => result.problems.push(`close: ${short(error)}`));
  }
  console.log(`RESULT ${JSON.stringify(result)}`);
}

/** The text blocks of a CallToolResult, as a model is shown them. */
export function textOf(result) {
  return (result?.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

/**
 * The face of an MCP SDK Client (v1 or v2, whichever `client` and `validator` are): the SDK's JSON Schema
 * validator compiles every input and output schema, and each call's arguments must pass the compiled
 * input schema before they are sent (as the arguments a model produced from that schema would be).
 */
export function sdkClientFace(client, validator) {
  const inputs = new Map();
  return {
    list: async () => (await client.listTools()).tools,
    convert: async (tool) => {
      inputs.set(tool.name, validator.getValidator(tool.inputSchema));
      if (tool.outputSchema) validator.getValidator(tool.outputSchema);
    },
    call: async (name, args) => {
      const checked = inputs.get(name)?.(args);
      if (!checked?.valid)
        throw new Error(`the arguments fail the ${name} input schema: ${checked?.errorMessage}`);
      const result = await client.callTool({ name, arguments: args });
      return { isError: result.isError === true, text: textOf(result) };
    },
    close: () => client.close(),
  };
}
