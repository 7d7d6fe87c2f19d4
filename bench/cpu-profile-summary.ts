/**
 * A V8 CPU profile (the .cpuprofile that bench/cpu-profile-probe.mjs writes) summarized per call: the self
 * time of every sample, grouped by the part of the server it ran in (a package, a folder of ours, Node's
 * own modules, GC), and the functions that took the most. Self time is wall time between samples: on a
 * server pinned to one core, a thread of its own pool that runs meanwhile (libuv's file writes) is counted
 * in whatever the main thread was doing, so judge a change by CPU per call too (docs/benchmarks.md).
 */

/** The parts of Chrome DevTools' Profile type this reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  name: string;
  microsPerCall: number;
  /** Of all sampled time, 0 to 1. */
  share: number;
}

export interface ProfileSummary {
  /** Sampled time per call, µs: the server's busy time and its idle time together. */
  sampledMicrosPerCall: number;
  parts: ProfileRow[];
  functions: ProfileRow[];
}

/**
 * Where a frame ran: `(garbage collector)` and V8's other pseudo-frames as they are, a package under
 * node_modules by its name (the innermost, when one package nests another), our build by its folder (`moviedb mcp`), Node's own modules by their first
 * segment (`node http`, `node streams`), a built-in with no script as `(native)`.
 */
export function partOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const module = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (module) return module[1]!;
  const ours = /\/(?:dist|src)\/(?:([^/]+)\/)?.+$/.exec(url);
  if (ours) return `moviedb ${ours[1] ?? '(top)'}`;
  const node = /^node:(?:internal\/)?([^/]+)/.exec(url);
  if (node) return `node ${node[1]}`;
  return url;
}

const where = (url: string, line: number) =>
  `${url.replace(/^.*\/(node_modules|dist|src)\//, '')}:${line + 1}`;

/** Self time per call, by part and by function (the `top` largest), over `calls` answered calls. */
export function summarizeCpuProfile(profile: CpuProfile, calls: number, top = 20): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const parts = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  // A sample's time is the delta to the next sample (V8 records the delta before each): the last has none.
  profile.samples.forEach((id, i) => {
    const micros = profile.timeDeltas[i + 1] ?? 0;
    const frame = byId.get(id);
    if (!frame || micros <= 0) return;
    total += micros;
    const part = partOf(frame.url, frame.functionName);
    parts.set(part, (parts.get(part) ?? 0) + micros);
    const name =
      frame.url === ''
        ? part === '(native)'
          ? `${frame.functionName} (native)`
          : part
        : `${frame.functionName || '(anonymous)'} ${where(frame.url, frame.lineNumber)}`;
    functions.set(name, (functions.get(name) ?? 0) + micros);
  });
  const rows = (totals: Map<string, number>) =>
    [...totals]
      .sort(([, a], [, b]) => b - a)
      .map(([name, micros]) => ({ name, microsPerCall: micros / calls, share: micros / total }));
  return {
    sampledMicrosPerCall: total / calls,
    parts: rows(parts),
    functions: rows(functions).slice(0, top),
  };
}
