/**
 * The sessions the corpus's /mcp cases run in: an anonymous one, the user's, and an event id of a call
 * stream of the user's.
 */
import { INITIALIZE, MCP_HEADERS } from '../helpers/mcp.js';

export interface CorpusSessions {
  anonymous: string;
  user: string;
  /** The id of an event of a call stream of the user's session. */
  userStreamEventId: string;
}

/** Makes a call on a session and returns the first event id of its (resumable) response stream. */
async function callStreamEventId(url: string, sessionId: string, token: string): Promise<string> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      ...MCP_HEADERS,
      authorization: `Bearer ${token}`,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'getMovie', arguments: { id: '1' } },
    }),
  });
  const id = /^id: (.+)$/m.exec(await response.text())?.[1];
  if (!id) throw new Error(`the call stream carried no event id (${response.status})`);
  return id;
}

async function openSession(url: string, token?: string): Promise<string> {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...auth },
    body: JSON.stringify(INITIALIZE),
  });
  await response.text();
  const id = response.headers.get('mcp-session-id');
  if (!id) throw new Error(`initialize failed with ${response.status}`);
  await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).then((r) => r.text());
  return id;
}

export async function openCorpusSessions(url: string, userToken: string): Promise<CorpusSessions> {
  const user = await openSession(url, userToken);
  return {
    anonymous: await openSession(url),
    user,
    userStreamEventId: await callStreamEventId(url, user, userToken),
  };
}
