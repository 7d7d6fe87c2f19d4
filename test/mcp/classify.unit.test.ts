import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { classify, type CallHeaders } from '../../src/mcp/direct-tool-call.js';

const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'searchMovies', arguments: {} } };
const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Bodies around the shortcut's edges: each one is what a 2025 client sends, or one detail away from it. */
const bodies: Record<string, unknown> = {
  'a tools/call': call,
  'a string id': { ...call, id: 'a' },
  'no params': { jsonrpc: '2.0', id: 2, method: 'ping' },
  'empty params': { ...call, params: {} },
  'a fractional id': { ...call, id: 1.5 },
  'an unsafe integer id': { ...call, id: 2 ** 60 },
  'a null id': { ...call, id: null },
  'no id (a notification)': { jsonrpc: '2.0', method: 'notifications/initialized' },
  'another jsonrpc': { ...call, jsonrpc: '1.0' },
  'a non-string method': { ...call, method: 7 },
  'an extra member': { ...call, extra: true },
  'a __proto__ member': JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{}}'),
  'array params': { ...call, params: [] },
  'null params': { ...call, params: null },
  'params with _meta': { ...call, params: { name: 'x', _meta: { progressToken: 1 } } },
  'params with a bad _meta': { ...call, params: { name: 'x', _meta: { progressToken: {} } } },
  'params with an envelope': { ...call, params: { name: 'x', _meta: envelope } },
  initialize: {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  },
  'a result': { jsonrpc: '2.0', id: 1, result: {} },
  'an error': { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } },
  'a batch': [call],
  'not an object': 'tools/call',
};

const headerSets: Record<string, CallHeaders> = {
  'no version header': {},
  '2025-11-25': { protocolVersion: '2025-11-25' },
  '2025-03-26': { protocolVersion: '2025-03-26' },
  'padded 2025-11-25': { protocolVersion: ' 2025-11-25 ' },
  '2026-07-28': { protocolVersion: '2026-07-28', mcpMethod: 'tools/call', mcpName: 'searchMovies' },
  'an unknown revision': { protocolVersion: '2024-01-01' },
};

describe('classify', () => {
  for (const [bodyName, body] of Object.entries(bodies)) {
    for (const [headerName, headers] of Object.entries(headerSets)) {
      it(`classifies ${bodyName} with ${headerName} as the SDK does`, () => {
        const sdk = classifyInboundRequest({
          httpMethod: 'POST',
          protocolVersionHeader: headers.protocolVersion,
          mcpMethodHeader: headers.mcpMethod,
          mcpNameHeader: headers.mcpName,
          body,
        });
        expect(classify(body, headers)).toEqual(sdk);
      });
    }
  }
});
