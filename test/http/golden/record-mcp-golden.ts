/**
 * Rewrites mcp-golden.json from a running build: `npx tsx test/http/golden/record-mcp-golden.ts`
 * (SQLite, both MCP modes). Review the diff before committing it: the table is the contract the test
 * holds the server to.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startTestServer } from '../../helpers/server.js';
import { expiredToken, type GoldenAnswer } from './graphql-cases.js';
import {
  goldenKey,
  mcpCases,
  mcpSessionCases,
  openSessions,
  sendMcpGolden,
  type McpMode,
} from './mcp-cases.js';

const out = process.argv[2] ?? path.join(import.meta.dirname, 'mcp-golden.json');
const table: Record<string, GoldenAnswer> = {};
for (const mode of ['stateless', 'sessions'] as McpMode[]) {
  const server = await startTestServer('sqlite', {
    env: { MCP_MODE: mode },
  });
  try {
    const token = await server.login('user', 'user123');
    for (const request of mcpCases(token, await expiredToken()))
      table[goldenKey(mode, request.name)] = (await sendMcpGolden(server.url, request)).answer;
    if (mode === 'sessions') {
      const sessions = await openSessions(server.url, token, await server.login('mara', 'password'));
      for (const request of mcpSessionCases(token))
        table[goldenKey(mode, request.name)] = (await sendMcpGolden(server.url, request, sessions)).answer;
    }
  } finally {
    await server.stop();
  }
}
writeFileSync(out, `${JSON.stringify(table, null, 2)}\n`);
