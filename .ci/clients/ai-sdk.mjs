// Vercel AI SDK's MCP client (`@ai-sdk/mcp`) over Streamable HTTP with a bearer token. Conversion is the
// AI SDK's own: `tools()` builds its tools (`jsonSchema(...)` input schemas), and `asSchema(...).jsonSchema`
// is what it sends a model as the tool's parameters. What a model reads of a result is the tool's
// `toModelOutput` (only the text blocks: isError and structuredContent do not reach it).
// Usage: node ai-sdk.mjs BASE_URL
import { createMCPClient } from '@ai-sdk/mcp';
import { asSchema } from '@ai-sdk/provider-utils';
import { installedVersion, login, runDriver } from './common.mjs';

const base = process.argv[2];

await runDriver(
  {
    client: '@ai-sdk/mcp createMCPClient',
    version: installedVersion('@ai-sdk/mcp'),
    how: 'Streamable HTTP, 2025-11-25, bearer',
  },
  async () => {
    const token = await login(base, 'ines');
    const client = await createMCPClient({
      transport: { type: 'http', url: `${base}/mcp`, headers: { authorization: `Bearer ${token}` } },
      clientName: 'moviedb-ci-ai-sdk',
    });
    const tools = await client.tools();
    return {
      list: async () => Object.entries(tools).map(([name, tool]) => ({ name, tool })),
      convert: async ({ name, tool }) => {
        const parameters = await asSchema(tool.inputSchema).jsonSchema;
        if (parameters?.type !== 'object') throw new Error(`${name}: parameters are not an object schema`);
      },
      call: async (name, args) => {
        const toolCallId = `call-${name}`;
        const output = await tools[name].execute(args, { toolCallId, messages: [] });
        const shown = await tools[name].toModelOutput({ toolCallId, input: args, output });
        const text = (shown.type === 'content' ? shown.value : [])
          .filter((part) => part.type === 'text')
          .map((part) => part.text)
          .join('\n');
        return { isError: output.isError === true, text };
      },
      close: () => client.close(),
    };
  },
);
