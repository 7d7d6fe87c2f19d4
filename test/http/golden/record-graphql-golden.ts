/**
 * Rewrites graphql-golden.json from a running build: `npx tsx test/http/golden/record-graphql-golden.ts`
 * (SQLite). Review the diff before committing it: the table is the contract the test holds the server to.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startTestServer } from '../../helpers/server.js';
import { expiredToken, graphqlCases, sendGolden, type GoldenAnswer } from './graphql-cases.js';

const out = process.argv[2] ?? path.join(import.meta.dirname, 'graphql-golden.json');
const server = await startTestServer('sqlite');
try {
  const token = await server.login('user', 'user123');
  const table: Record<string, GoldenAnswer> = {};
  for (const request of graphqlCases(token, await expiredToken()))
    table[request.name] = (await sendGolden(server.url, request)).answer;
  writeFileSync(out, `${JSON.stringify(table, null, 2)}\n`);
} finally {
  await server.stop();
}
