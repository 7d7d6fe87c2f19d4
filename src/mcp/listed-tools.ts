/**
 * Every tool exactly as tools/list lists it on each locked revision: a real server from createMcpServer
 * answers a real tools/list, over an in-memory transport after an initialize (2025-11-25) and through the
 * SDK's per-request handler with the request envelope (2026-07-28), so whatever the SDK's encoding for a
 * revision changes is in the answer. The tool lock (tool-lock.ts) is taken of this; no database or port
 * is opened, and nothing but tools/list is asked of the server.
 */
import {
  createMcpHandler,
  InMemoryTransport,
  type JSONRPCMessage,
  type Tool,
} from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import type { Catalogue, OperationCatalogue } from '../operations/operation-catalogue.js';
import { createMcpServer, type McpServerDependencies } from './mcp-server.js';

/** The revisions a lock records: the newest of each era, which list schemas as their era does. */
export const LOCKED_REVISIONS = ['2025-11-25', '2026-07-28'] as const;
export type LockedRevision = (typeof LOCKED_REVISIONS)[number];

const CLIENT_INFO = { name: 'moviedb-mcp-tool-lock', version: '1' };

const notUsedForListing = () => {
  throw new Error('not used by tools/list');
};

/** A server that can answer tools/list (every tool, whoever asks) and nothing that needs a store. */
function listingDependencies(catalogue: Catalogue, logger: Logger): McpServerDependencies {
  const fixed: OperationCatalogue = {
    current: () => catalogue,
    onCatalogueChanged: () => () => undefined,
    watching: false,
    close: () => undefined,
  };
  return {
    catalogue: fixed,
    toolsVisibility: 'all',
    logger,
    runTool: notUsedForListing,
    confirmations: { sign: notUsedForListing, verify: notUsedForListing },
    resources: { list: () => [], templates: () => [], read: notUsedForListing },
    prompts: { list: () => [], get: notUsedForListing, complete: notUsedForListing },
    limits: { admitRequest: notUsedForListing },
  } as unknown as McpServerDependencies; // only the members above that tools/list reads are real
}

function toolsOf(message: unknown, revision: string): Tool[] {
  const result = (message as { result?: { tools?: unknown } }).result;
  if (!Array.isArray(result?.tools)) {
    throw new Error(`tools/list on ${revision} answered ${JSON.stringify(message).slice(0, 300)}`);
  }
  return result.tools as Tool[];
}

/** 2025-11-25: initialize, initialized, tools/list, on a session of its own. */
async function listLegacy(deps: McpServerDependencies): Promise<Tool[]> {
  const server = createMcpServer(deps, { era: 'legacy' });
  const [client, transport] = InMemoryTransport.createLinkedPair();
  const answers = new Map<unknown, (message: JSONRPCMessage) => void>();
  client.onmessage = (message) => {
    if ('id' in message) answers.get(message.id)?.(message);
  };
  const ask = (id: number, method: string, params: Record<string, unknown>) =>
    new Promise<JSONRPCMessage>((resolve) => {
      answers.set(id, resolve);
      void client.send({ jsonrpc: '2.0', id, method, params });
    });
  await server.connect(transport);
  try {
    await ask(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO });
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return toolsOf(await ask(2, 'tools/list', {}), '2025-11-25');
  } finally {
    await server.close();
  }
}

/** 2026-07-28: one request carrying its envelope and the headers the revision requires. */
async function listModern(deps: McpServerDependencies): Promise<Tool[]> {
  const handler = createMcpHandler(() => createMcpServer(deps, { era: 'modern' }), { legacy: 'reject' });
  const response = await handler.fetch(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    }),
  );
  try {
    return toolsOf(await response.json(), '2026-07-28');
  } finally {
    await handler.close();
  }
}

/** Each locked revision's tools/list, every tool. */
export async function listedTools(
  catalogue: Catalogue,
  logger: Logger,
): Promise<Record<LockedRevision, Tool[]>> {
  const deps = listingDependencies(catalogue, logger);
  return { '2025-11-25': await listLegacy(deps), '2026-07-28': await listModern(deps) };
}
