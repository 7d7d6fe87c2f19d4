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
  // 2026-07-28 bodies: the envelope's verdict is the SDK's, asked once per envelope, kept when modern.
  'a 2026 tools/call': { ...call, params: { ...call.params, _meta: envelope } },
  'a 2026 tools/call again, another id': { ...call, id: 'b', params: { ...call.params, _meta: envelope } },
  'a 2026 tools/call with an unsafe integer id': { ...call, id: 2 ** 60, params: { _meta: envelope } },
  'a 2026 tools/call with an extra member': { ...call, extra: 1, params: { _meta: envelope } },
  'a 2026 notification': { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: envelope } },
  'a 2026 initialize': { jsonrpc: '2.0', id: 0, method: 'initialize', params: { _meta: envelope } },
  'a 2026 ping': { jsonrpc: '2.0', id: 3, method: 'ping', params: { _meta: envelope } },
  'a 2026 envelope with a progress token': {
    ...call,
    params: { name: 'x', _meta: { ...envelope, progressToken: 'p' } },
  },
  'a 2026 envelope with a bad progress token': {
    ...call,
    params: { name: 'x', _meta: { ...envelope, progressToken: 1.5 } },
  },
  'a 2026 envelope without capabilities': {
    ...call,
    params: { name: 'x', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
  },
  'a 2026 envelope with bad capabilities': {
    ...call,
    params: { name: 'x', _meta: { ...envelope, 'io.modelcontextprotocol/clientCapabilities': [] } },
  },
  'a 2026 envelope with a bad clientInfo': {
    ...call,
    params: { name: 'x', _meta: { ...envelope, 'io.modelcontextprotocol/clientInfo': { name: 1 } } },
  },
  'a 2026 envelope with capabilities declared': {
    ...call,
    params: {
      name: 'x',
      _meta: {
        ...envelope,
        'io.modelcontextprotocol/clientCapabilities': {
          elicitation: { form: {} },
          roots: { listChanged: true },
        },
      },
    },
  },
  'a 2026 envelope with a log level': {
    ...call,
    params: { name: 'x', _meta: { ...envelope, 'io.modelcontextprotocol/logLevel': 'debug' } },
  },
  'a 2026 envelope with a bad log level': {
    ...call,
    params: { name: 'x', _meta: { ...envelope, 'io.modelcontextprotocol/logLevel': 'loud' } },
  },
  'an envelope naming 2025-11-25': {
    ...call,
    params: { name: 'x', _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
  },
  'an envelope with a non-string version': {
    ...call,
    params: { name: 'x', _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': 2026 } },
  },
  'a 2026 envelope and array params': { ...call, params: [envelope] },
  'not an object': 'tools/call',
};

const headerSets: Record<string, CallHeaders> = {
  'no version header': {},
  '2025-11-25': { protocolVersion: '2025-11-25' },
  '2025-03-26': { protocolVersion: '2025-03-26' },
  'padded 2025-11-25': { protocolVersion: ' 2025-11-25 ' },
  '2026-07-28': { protocolVersion: '2026-07-28', mcpMethod: 'tools/call', mcpName: 'searchMovies' },
  'an unknown revision': { protocolVersion: '2024-01-01' },
  '2026-07-28, padded': {
    protocolVersion: ' 2026-07-28\t',
    mcpMethod: ' tools/call ',
    mcpName: 'searchMovies',
  },
  '2026-07-28 naming another method': { protocolVersion: '2026-07-28', mcpMethod: 'ping', mcpName: 'x' },
  '2026-07-28 without Mcp-Method': { protocolVersion: '2026-07-28' },
  'a later revision': { protocolVersion: '2027-01-01', mcpMethod: 'tools/call', mcpName: 'x' },
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
        // Asked again, the answer may come from the kept verdicts: still the SDK's.
        expect(classify(body, headers)).toEqual(sdk);
      });
    }
  }
});
