// The MCP TypeScript SDK v1 Client (protocol 2025-11-25, sessions) over Streamable HTTP with a bearer
// token. Conversion is the SDK's own: its JSON Schema validator compiles every tool's input and output
// schema (the client also validates each structuredContent against the output schema on every call).
// Usage: node sdk-v1.mjs BASE_URL
import { URL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { installedVersion, login, runDriver, sdkClientFace } from './common.mjs';

const base = process.argv[2];
const validator = new AjvJsonSchemaValidator();

await runDriver(
  {
    client: '@modelcontextprotocol/sdk Client',
    version: installedVersion('@modelcontextprotocol/sdk'),
    how: 'Streamable HTTP, 2025-11-25, bearer',
  },
  async () => {
    const token = await login(base, 'mara');
    const client = new Client({ name: 'moviedb-ci-sdk-v1', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return sdkClientFace(client, validator);
  },
);
