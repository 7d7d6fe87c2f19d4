import { describe, expect, it } from 'vitest';
import { partOf, summarizeCpuProfile, type CpuProfile } from '../../bench/cpu-profile-summary.js';

describe('partOf names the part of the server a frame ran in', () => {
  it.each([
    ['', '(garbage collector)', '(garbage collector)'],
    ['', '(program)', '(program)'],
    ['', 'JSONStringify', '(native)'],
    ['file:///app/node_modules/graphql/execution/execute.js', 'executeField', 'graphql'],
    [
      'file:///app/node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js',
      'x',
      '@modelcontextprotocol/sdk',
    ],
    ['file:///app/node_modules/a/node_modules/pino/lib/proto.js', 'write', 'pino'],
    ['file:///app/dist/mcp/tool-runner.js', 'run', 'moviedb mcp'],
    ['file:///app/dist/graphql/policies/store-policy.js', 'run', 'moviedb graphql'],
    ['file:///app/dist/app.js', 'createApp', 'moviedb (top)'],
    ['node:internal/streams/writable', 'write', 'node streams'],
    ['node:_http_server', 'emit', 'node _http_server'],
    ['node:events', 'emit', 'node events'],
  ])('%s %s is %s', (url, functionName, part) => {
    expect(partOf(url, functionName)).toBe(part);
  });
});

describe('summarizeCpuProfile', () => {
  // Samples at 1, 2, 1, 3, 4, 1: each takes the delta recorded before the next one, the last none.
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
      {
        id: 2,
        callFrame: {
          functionName: 'executeField',
          url: 'file:///a/node_modules/graphql/x.js',
          lineNumber: 9,
        },
      },
      { id: 3, callFrame: { functionName: '', url: 'file:///a/dist/mcp/tool-runner.js', lineNumber: 0 } },
      { id: 4, callFrame: { functionName: 'writeUtf8String', url: '', lineNumber: -1 } },
    ],
    samples: [1, 2, 1, 3, 4, 1],
    timeDeltas: [5, 100, 300, 50, 450, 100],
  };

  it('gives each sample the time until the next, per answered call, by part and by function (a built-in by its name)', () => {
    const summary = summarizeCpuProfile(profile, 10);
    expect(summary.sampledMicrosPerCall).toBe(100);
    expect(summary.parts).toEqual([
      { name: 'moviedb mcp', microsPerCall: 45, share: 0.45 },
      { name: 'graphql', microsPerCall: 30, share: 0.3 },
      { name: '(garbage collector)', microsPerCall: 15, share: 0.15 },
      { name: '(native)', microsPerCall: 10, share: 0.1 },
    ]);
    expect(summary.functions.map((f) => f.name)).toEqual([
      '(anonymous) mcp/tool-runner.js:1',
      'executeField graphql/x.js:10',
      '(garbage collector)',
      'writeUtf8String (native)',
    ]);
  });

  it('keeps the top functions only', () => {
    expect(summarizeCpuProfile(profile, 10, 1).functions).toHaveLength(1);
  });
});
