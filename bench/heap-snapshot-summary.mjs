// Summarizes a heap snapshot (bench/memory-probe.mjs writes them): self sizes by node type, the largest
// constructors, and the source text V8 keeps per loaded package (a Script's `source` string), in MiB.
//   node bench/heap-snapshot-summary.mjs FILE.heapsnapshot [TOP]
import { readFileSync } from 'node:fs';

const [file, topArg = '25'] = process.argv.slice(2);
const top = Number(topArg);
const snapshot = JSON.parse(readFileSync(file, 'utf8'));
const { node_fields: nodeFields, edge_fields: edgeFields } = snapshot.snapshot.meta;
const nodeTypes = snapshot.snapshot.meta.node_types[0];
const edgeTypes = snapshot.snapshot.meta.edge_types[0];
const { nodes, edges, strings } = snapshot;
const N = nodeFields.length;
const E = edgeFields.length;
const at = (name) => nodeFields.indexOf(name);
const [fType, fName, fSize, fEdges] = [at('type'), at('name'), at('self_size'), at('edge_count')];
const [eType, eName, eTo] = [
  edgeFields.indexOf('type'),
  edgeFields.indexOf('name_or_index'),
  edgeFields.indexOf('to_node'),
];
const MiB = (bytes) => (bytes / 1048576).toFixed(2);

const byType = new Map();
const byName = new Map();
let total = 0;
for (let i = 0; i < nodes.length; i += N) {
  const type = nodeTypes[nodes[i + fType]];
  const size = nodes[i + fSize];
  total += size;
  byType.set(type, (byType.get(type) ?? 0) + size);
  const key = `${type}: ${strings[nodes[i + fName]].slice(0, 60)}`;
  byName.set(key, (byName.get(key) ?? 0) + size);
}
const print = (title, map, count) => {
  console.log(`\n${title}`);
  for (const [key, size] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count))
    console.log(`${MiB(size).padStart(8)}  ${key}`);
};
console.log(`total self size ${MiB(total)} MiB`);
print('by type', byType, 20);
print('by type and name', byName, top);

// Script source strings (a Script is a `code` node named by its URL, its text behind an internal
// `source` edge), attributed to the package, or our own dist/, the URL points into.
const byPackage = new Map();
let edgeIndex = 0;
for (let i = 0; i < nodes.length; i += N) {
  const count = nodes[i + fEdges];
  const name = strings[nodes[i + fName]];
  if (nodeTypes[nodes[i + fType]] === 'code') {
    for (let k = 0, e = edgeIndex; k < count; k++, e += E) {
      if (edgeTypes[edges[e + eType]] !== 'internal' || strings[edges[e + eName]] !== 'source') continue;
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(name) ?? /\/(dist|src)\//.exec(name);
      const key = match
        ? match[1]
        : name.startsWith('node:') || name === ''
          ? 'node built-ins, eval'
          : name.slice(0, 60);
      byPackage.set(key, (byPackage.get(key) ?? 0) + nodes[edges[e + eTo] + fSize]);
    }
  }
  edgeIndex += count * E;
}
print('script source by package', byPackage, top);
