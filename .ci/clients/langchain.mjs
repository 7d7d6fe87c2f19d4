// LangChain's MCP adapters (`@langchain/mcp-adapters`, MultiServerMCPClient) over Streamable HTTP with a
// bearer token. Conversion is LangChain's own: the adapters turn each tool into a DynamicStructuredTool
// (dereferenced, simplified JSON Schema, which it validates arguments against), and `convertToOpenAITool`
// is what `bindTools` sends a chat model. Calls go through LangGraph's ToolNode, as an agent's do, and the
// text is the ToolMessage a model reads: on success the text block as JSON (with structuredContent beside
// it), on a tool error `Error: MCP tool '…' returned an error: ` followed by our text.
// Usage: node langchain.mjs BASE_URL
import { AIMessage } from '@langchain/core/messages';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { installedVersion, login, runDriver } from './common.mjs';

const base = process.argv[2];
const PREFIX = /^Error: MCP tool '[^']+' on server 'moviedb' returned an error: /;

await runDriver(
  {
    client: '@langchain/mcp-adapters MultiServerMCPClient',
    version: installedVersion('@langchain/mcp-adapters'),
    how: 'Streamable HTTP, 2025-11-25, bearer',
  },
  async () => {
    const token = await login(base, 'tomas');
    const client = new MultiServerMCPClient({
      mcpServers: {
        moviedb: { transport: 'http', url: `${base}/mcp`, headers: { authorization: `Bearer ${token}` } },
      },
      throwOnLoadError: true,
    });
    const tools = await client.getTools();
    const node = new ToolNode(tools);
    let calls = 0;
    return {
      list: async () => tools,
      convert: async (tool) => {
        const converted = convertToOpenAITool(tool);
        if (converted.function?.parameters?.type !== 'object')
          throw new Error('parameters are not an object schema');
      },
      call: async (name, args) => {
        const asked = new AIMessage({
          content: '',
          tool_calls: [{ id: `call-${(calls += 1)}`, name, args }],
        });
        const [message] = (await node.invoke({ messages: [asked] })).messages;
        const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
        return message.status === 'error'
          ? { isError: true, text: text.replace(PREFIX, '') }
          : { isError: false, text };
      },
      close: () => client.close(),
    };
  },
);
