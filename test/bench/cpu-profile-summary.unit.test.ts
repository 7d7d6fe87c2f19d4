import { describe, expect, it } from 'vitest';
import { partOf, summarizeCpuProfile, type CpuProfile } from '../../bench/cpu-profile-summary.js';

const ROOT = 'file:///home/dev/src/moviedb-mcp/';

describe('partOf names the part of the server a frame ran in', () => {
  it.each([
    ['', '(garbage collector)', '(garbage collector)'],
    ['', '(program)', '(program)'],
    ['', 'JSONStringify', '(native)'],
    [`${ROOT}node_modules/graphql/execution/execute.js`, 'executeField', 'graphql'],
    [
      `${ROOT}node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js`,
      'x',
      '@modelcontextprotocol/sdk',
    ],
    [`${ROOT}node_modules/a/node_modules/pino/lib/proto.js`, 'write', 'pino'],
    [`${ROOT}dist/mcp/tool-runner.js`, 'run', 'moviedb mcp'],
    [`${ROOT}dist/graphql/policies/store-policy.js`, 'run', 'moviedb graphql'],
    [`${ROOT}dist/app.js`, 'createApp', 'moviedb (top)'],
    [`${ROOT}bench/heap-probe.mjs`, 'report', `${ROOT}bench/heap-probe.mjs`],
    ['file:///elsewhere/dist/mcp/x.js', 'x', 'file:///elsewhere/dist/mcp/x.js'],
    ['node:internal/streams/writable', 'write', 'node streams'],
    ['node:_http_server', 'emit', 'node _http_server'],
    ['node:events', 'emit', 'node events'],
  ])('%s %s is %s', (url, functionName, part) => {
    expect(partOf(url, functionName, ROOT)).toBe(part);
  });
});

describe('summarizeCpuProfile', () => {
  const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber });
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(garbage collector)', '', -1) },
      { id: 2, callFrame: frame('executeField', `${ROOT}node_modules/graphql/x.js`, 9) },
      { id: 3, callFrame: frame('', `${ROOT}dist/mcp/tool-runner.js`) },
      { id: 4, callFrame: frame('writeUtf8String', '', -1) },
      {
        id: 5,
        callFrame: frame(
          'connect',
          `${ROOT}node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js`,
          4,
        ),
      },
    ],
    // Each delta is the time since the sample before; each sample counts until the next, the last not at all.
    samples: [1, 2, 1, 3, 4, 5, 1],
    timeDeltas: [5, 100, 300, 50, 400, 100, 50],
  };

  it('gives each sample the time until the next, per answered call, by part and by function (a built-in by its name)', () => {
    const summary = summarizeCpuProfile(profile, 10, 20, ROOT);
    expect(summary.sampledMicrosPerCall).toBe(100);
    expect(summary.parts).toEqual([
      { name: 'moviedb mcp', microsPerCall: 40, share: 0.4 },
      { name: 'graphql', microsPerCall: 30, share: 0.3 },
      { name: '(garbage collector)', microsPerCall: 15, share: 0.15 },
      { name: '(native)', microsPerCall: 10, share: 0.1 },
      { name: '@modelcontextprotocol/sdk', microsPerCall: 5, share: 0.05 },
    ]);
    expect(summary.functions.map((f) => f.name)).toEqual([
      '(anonymous) dist/mcp/tool-runner.js:1',
      'executeField graphql/x.js:10',
      '(garbage collector)',
      'writeUtf8String (native)',
      'connect @modelcontextprotocol/sdk/dist/esm/server/mcp.js:5',
    ]);
  });

  it('orders samples recorded out of order (a negative delta) by their time', () => {
    // Samples at 0 (GC), 100 (graphql), 60 (ours), 160 (GC): in time order GC 60, ours 40, graphql 60.
    const summary = summarizeCpuProfile(
      { nodes: profile.nodes, samples: [1, 2, 3, 1], timeDeltas: [0, 100, -40, 100] },
      1,
      20,
      ROOT,
    );
    expect(summary.parts).toEqual([
      { name: '(garbage collector)', microsPerCall: 60, share: 0.375 },
      { name: 'graphql', microsPerCall: 60, share: 0.375 },
      { name: 'moviedb mcp', microsPerCall: 40, share: 0.25 },
    ]);
  });

  it('keeps the top functions only', () => {
    expect(summarizeCpuProfile(profile, 10, 1, ROOT).functions).toHaveLength(1);
  });
});
