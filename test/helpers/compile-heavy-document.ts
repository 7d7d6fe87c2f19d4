/**
 * A document inside every GraphQL limit (depth, cost, aliases per field, selections per set, tokens)
 * that is costly to compile: 98 root fields, each spreading one fragment of 98 `__typename` aliases
 * (which the cost and alias limits leave out), so HEAVY_FIELDS fields once spread out. graphql-jit took
 * 0.8 to 2 s to compile it here (an interface fragment: code for each type), and little to execute. `variant` renames the aliases: each variant is a new document.
 */
const ROOTS = [
  (i: number) => `m${i}: movie(id: "${(i % 9) + 1}") { ...F }`,
  (i: number) => `t${i}: tvShow(id: "1") { ...F }`,
  (i: number) => `b${i}: moviesByIds(ids: ["1"]) { ...F }`,
  (i: number) => `p${i}: movies(size: 1) { content { ...F } }`,
  (i: number) => `v${i}: tvShows(size: 1) { content { ...F } }`,
  (i: number) => `d${i}: person(id: "1") { directedMovies { ...F } }`,
  (i: number) => `e${i}: people(size: 1) { content { directedMovies { ...F } } }`,
];

export const HEAVY_OPERATION = 'CompileHeavy';
/** 98 × 98 aliases, the 98 root fields and the 70 fields between some of them and the spread. */
export const HEAVY_FIELDS = 9772;

export function compileHeavyDocument(variant = 0): string {
  // Seven root fields, 14 aliases each: within the 15 names one field may have.
  const roots = Array.from({ length: 98 }, (_, i) => ROOTS[i % ROOTS.length]!(i));
  const aliases = Array.from({ length: 98 }, (_, i) => `v${variant}a${i}: __typename`);
  return `query ${HEAVY_OPERATION} { ${roots.join(' ')} }\nfragment F on Content { ${aliases.join(' ')} }`;
}
