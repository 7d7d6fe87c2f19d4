/**
 * The cases of `npm run bench`: the bare baseline first (every ratio is to it), then /graphql and
 * tools/call.
 */
import type { Case } from './measure.js';
import { graphqlMix, isToolResult, toolCalls } from './requests.js';
import type { Proc } from './start-process.js';

const recommend = () => ({ mood: 'HORROR' });
const RECOMMEND = JSON.stringify({
  query:
    'query ($mood: Mood!) { recommendMoviesForMood(mood: $mood) { id title releaseYear genre rating runtime directors { name } } }',
  variables: { mood: 'HORROR' },
});
const SET_STATUS =
  'mutation ($itemId: ID!, $status: WatchStatus!) { setWatchStatus(itemId: $itemId, status: $status) { id status } }';
/** Reads sent for each write in the mixed case. */
const MIXED_READS = 9;

/** setWatchStatus arguments that visit the entries in turn, each visit flipping that entry's status. */
const toggling = (entries: string[]) => (n: number) => ({
  itemId: entries[n % entries.length],
  status: Math.floor(n / entries.length) % 2 ? 'WATCHED' : 'WANT_TO_WATCH',
});

/** Issue 20's throughput targets, as ratios to bare, per store: every deployment runs PostgreSQL. */
const TARGETS = {
  graphql: { sqlite: 0.75, postgres: 0.6 },
  session: { sqlite: 0.55, postgres: 0.45 },
  stateless: { sqlite: 0.55, postgres: 0.45 },
  myWatchlist: { sqlite: 0.35, postgres: 0.25 },
  write: { sqlite: 0.3, postgres: 0.2 },
};

export interface BenchServers {
  bare: Proc;
  sessions: Proc;
  stateless: Proc;
  store: 'sqlite' | 'postgres';
  /** The bench user's tokens on each app server, its session on `sessions`, its watch-list entries. */
  bearer: string;
  bearerStateless: string;
  sessionId: string;
  items: string[];
}

export function benchCases({
  store,
  bare,
  sessions,
  stateless,
  bearer,
  bearerStateless,
  sessionId,
  items,
}: BenchServers): Case[] {
  const auth = { authorization: `Bearer ${bearer}` };
  return [
    {
      name: 'bare Express GET (baseline)',
      proc: bare,
      options: { url: `http://127.0.0.1:${bare.port}/` },
      latency: true,
    },
    {
      name: 'GraphQL POST recommendMoviesForMood',
      proc: sessions,
      options: {
        url: `http://127.0.0.1:${sessions.port}/graphql`,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: RECOMMEND,
      },
      isResult: (body) => body.includes('"recommendMoviesForMood":[{') && !body.includes('"errors"'),
      target: TARGETS.graphql[store],
      latency: true,
    },
    {
      name: 'tools/call recommend, 2025 session (SSE)',
      proc: sessions,
      options: toolCalls(
        sessions.port,
        { ...auth, 'mcp-session-id': sessionId },
        '2025',
        'recommendMoviesForMood',
        recommend,
      ),
      isResult: isToolResult,
      target: TARGETS.session[store],
      latency: true,
    },
    {
      name: 'tools/call recommend, 2025 stateless (JSON)',
      proc: stateless,
      options: toolCalls(
        stateless.port,
        { authorization: `Bearer ${bearerStateless}` },
        '2025',
        'recommendMoviesForMood',
        recommend,
      ),
      isResult: isToolResult,
      target: TARGETS.stateless[store],
      latency: true,
    },
    {
      name: 'tools/call recommend, 2026-07-28 (JSON)',
      proc: sessions,
      options: toolCalls(sessions.port, auth, '2026', 'recommendMoviesForMood', recommend),
      isResult: isToolResult,
      latency: true,
    },
    {
      name: 'tools/call myWatchlist (per viewer), 2026-07-28',
      proc: sessions,
      options: toolCalls(sessions.port, auth, '2026', 'myWatchlist', () => ({})),
      isResult: isToolResult,
      target: TARGETS.myWatchlist[store],
      latency: true,
    },
    {
      // Each request a different entry, as a population of users writes: what is measured is the
      // gateway's write path and the store's commits, not a queue on one row's lock.
      name: 'tools/call setWatchStatus toggling (write), 2026-07-28',
      proc: sessions,
      options: toolCalls(sessions.port, auth, '2026', 'setWatchStatus', toggling(items)),
      isResult: isToolResult,
      target: TARGETS.write[store],
      latency: true,
    },
    {
      // Readers and writers together: a watch-list write changes only its writer's rows, so the
      // recommendations the readers share stay answered from the result cache between writes.
      name: `GraphQL POST ${MIXED_READS} recommend reads, 1 watch-list write`,
      proc: sessions,
      options: graphqlMix(sessions.port, auth, RECOMMEND, MIXED_READS, (n) =>
        JSON.stringify({ query: SET_STATUS, variables: toggling(items)(n) }),
      ),
      isResult: (body) => body.startsWith('{"data":{') && !body.includes('"errors"'),
      latency: true,
    },
    {
      // Every request the same entry: on PostgreSQL each commit waits for the one before it on that
      // row's lock, so this measures the database's ceiling for one hot row (docs/benchmarks.md).
      name: 'tools/call setWatchStatus, one hot row (write), 2026-07-28',
      proc: sessions,
      options: toolCalls(sessions.port, auth, '2026', 'setWatchStatus', toggling(items.slice(0, 1))),
      isResult: isToolResult,
      latency: true,
    },
  ];
}
