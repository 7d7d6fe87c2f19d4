// The MCP TypeScript SDK v2 Client (`@modelcontextprotocol/client`) over Streamable HTTP with a bearer
// token, either pinned to protocol 2026-07-28 (no handshake, no session) or negotiating as it does by
// default (2025-11-25). Conversion is the SDK's own JSON Schema validator, compiling every input and
// output schema. Usage: node client-v2.mjs BASE_URL 2026-07-28|2025-11-25
import { URL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { installedVersion, login, runDriver, sdkClientFace } from './common.mjs';

const [base, revision] = process.argv.slice(2);
const pinned = revision === '2026-07-28';
const validator = new AjvJsonSchemaValidator();

await runDriver(
  {
    client: '@modelcontextprotocol/client Client',
    version: installedVersion('@modelcontextprotocol/client'),
    how: `Streamable HTTP, ${pinned ? '2026-07-28 (pinned)' : '2025-11-25 (default)'}, bearer`,
  },
  async () => {
    const token = await login(base, pinned ? 'petra' : 'sofia');
    const client = new Client(
      { name: 'moviedb-ci-client-v2', version: '1.0.0' },
      pinned ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return sdkClientFace(client, validator);
  },
);
