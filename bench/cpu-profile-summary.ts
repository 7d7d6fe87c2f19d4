/**
 * A V8 CPU profile (the .cpuprofile that bench/cpu-profile-probe.mjs writes) summarized per call: the self
 * time of every sample, grouped by the part of the server it ran in (a package, a folder of ours, Node's
 * own modules, GC), and the functions that took the most. Self time is wall time between samples: on a
 * server pinned to one core, a thread of its own pool that runs meanwhile (libuv's file writes) is counted
 * in whatever the main thread was doing, so judge a change by CPU per call too (docs/benchmarks.md).
 */

/** The parts of Chrome DevTools' Profile type (node:inspector's Profiler.Profile) this reads. */
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

/** This checkout, as the profile's script URLs name it. */
const ROOT = new URL('..', import.meta.url).href;

/**
 * Where a frame ran: `(garbage collector)` and V8's other pseudo-frames as they are, a package under
 * node_modules by its name (the innermost, when one package nests another), a file of ours by its top
 * folder under dist/ or src/ (`moviedb mcp`), Node's own modules by their first segment (`node http`,
 * `node streams`), a built-in with no script as `(native)`, anything else by its URL.
 */
export function partOf(url: string, functionName: string, root = ROOT): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const module = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (module) return module[1]!;
  const ours = url.startsWith(root) ? /^(?:dist|src)\/(?:([^/]+)\/)?.+$/.exec(url.slice(root.length)) : null;
  if (ours) return `moviedb ${ours[1] ?? '(top)'}`;
  const node = /^node:(?:internal\/)?([^/]+)/.exec(url);
  if (node) return `node ${node[1]}`;
  return url;
}

/** A frame's file and line: within its package (named), relative to the checkout, or Node's module. */
function where(url: string, line: number, root: string): string {
  const file = url.replace(/^.*\/node_modules\//, '').replace(root, '');
  return `${file}:${line + 1}`;
}

/** Self time per call, by part and by function (the `top` largest), over `calls` answered calls. */
export function summarizeCpuProfile(
  profile: CpuProfile,
  calls: number,
  top = 20,
  root = ROOT,
): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  // Each delta is the time since the sample before (the first, since the profile began), and V8 may
  // record one out of order (a negative delta): as DevTools does, order the samples by time, and give
  // each the time until the next.
  let at = 0;
  const timed = profile.samples
    .map((id, i) => ({ id, at: (at += profile.timeDeltas[i] ?? 0) }))
    .sort((a, b) => a.at - b.at);
  const parts = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  timed.forEach(({ id, at: start }, i) => {
    const micros = (timed[i + 1]?.at ?? start) - start;
    const frame = byId.get(id);
    if (!frame || micros <= 0) return;
    total += micros;
    const part = partOf(frame.url, frame.functionName, root);
    parts.set(part, (parts.get(part) ?? 0) + micros);
    const name =
      frame.url === ''
        ? part === '(native)'
          ? `${frame.functionName} (native)`
          : part
        : `${frame.functionName || '(anonymous)'} ${where(frame.url, frame.lineNumber, root)}`;
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
