/**
 * A v1 SDK client that declares elicitation, and the test's side of its questions (docs/mcp.md,
 * Confirmation before destructive tools).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Envelope } from './mcp.js';

type Question = {
  /** The JSON-RPC id of the elicitation/create request. */
  id: string | number;
  message: string;
  signal: AbortSignal;
  answer(result: ElicitResult): void;
};

/**
 * A v1 client declaring elicitation whose questions the test answers (or not) through `questions`;
 * `fetch` lets a test send each request where it wants.
 */
export async function elicitingClient(baseUrl: string, token: string, fetchVia?: typeof fetch) {
  const questions: Question[] = [];
  const client = new Client({ name: 'elicits', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(
    ElicitRequestSchema,
    (request, extra) =>
      new Promise<ElicitResult>((answer) => {
        questions.push({
          id: extra.requestId,
          message: request.params.message,
          signal: extra.signal,
          answer,
        });
      }),
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    ...(fetchVia ? { fetch: fetchVia } : {}),
  });
  await client.connect(transport);
  return { client, transport, questions };
}

export const YES: ElicitResult = { action: 'accept', content: { confirm: true } };
export const removeFromWatchlist = (client: Client, itemId: string, options?: { signal?: AbortSignal }) =>
  client.callTool(
    { name: 'removeFromWatchlist', arguments: { itemId } },
    undefined,
    options,
  ) as unknown as Promise<{
    isError?: boolean;
    content: { text: string }[];
    structuredContent: Envelope;
  }>;
