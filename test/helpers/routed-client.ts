/**
 * A real 2025-11-25 client whose requests go to the replica a test names, and whose call streams it can
 * cut.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * A v1 SDK client (2025-11-25) whose requests go where `route` says, and whose tools/call response
 * streams are cut right after their priming event when `cutCalls` is on: a real client resuming for real.
 */
export function routedClient(
  route: (method: string, resuming: boolean) => string,
  options: { cutCalls: boolean; token?: string },
) {
  const resumes: string[] = [];
  const routed: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const resuming = headers.has('last-event-id');
    const base = route(init?.method ?? 'GET', resuming);
    if (resuming) resumes.push(base);
    const url = `${base}/mcp`;
    const isCall = typeof init?.body === 'string' && init.body.includes('"tools/call"');
    if (!options.cutCalls || !isCall) return fetch(url, init);
    const controller = new AbortController();
    init?.signal?.addEventListener('abort', () => controller.abort());
    const response = await fetch(url, { ...init, signal: controller.signal });
    const reader = response.body!.getReader();
    let seen = '';
    let cut = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        if (cut) {
          controller.abort();
          stream.error(new TypeError('terminated: the test cut the stream'));
          return;
        }
        const { value, done } = await reader.read();
        if (done) return stream.close();
        seen += new TextDecoder().decode(value);
        stream.enqueue(value);
        if (/^id: .+$/m.test(seen) && seen.includes('\n\n')) cut = true;
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const client = new Client({ name: 'moviedb-mcp-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('http://replicas.invalid/mcp'), {
    fetch: routed,
    requestInit: options.token ? { headers: { authorization: `Bearer ${options.token}` } } : undefined,
  });
  return { client, transport, resumes };
}
