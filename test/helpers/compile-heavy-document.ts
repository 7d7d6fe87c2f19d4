/**
 * A document inside every GraphQL limit (depth, cost, aliases per field, selections per set, tokens)
 * that is costly to compile: 98 root fields, each spreading one fragment of 98 `__typename` aliases
 * (which the cost and alias limits leave out), so 9,758 fields once spread out. graphql-jit took
 * 0.3 to 0.8 s to compile it here. `variant` renames the aliases: each variant is a new document.
 */
const ROOTS = [
  (i: number) => `m${i}: movie(id: "${(i % 9) + 1}") { ...F }`,
  (i: number) => `r${i}: recommendMoviesForMood(mood: HORROR) { ...F }`,
  (i: number) => `b${i}: moviesByIds(ids: ["1"]) { ...F }`,
  (i: number) => `p${i}: movies(size: 1) { content { ...F } }`,
  (i: number) => `s${i}: search(query: "x") { ...F }`,
  (i: number) => `d${i}: person(id: "1") { directedMovies { ...F } }`,
  (i: number) => `e${i}: people(size: 1) { content { directedMovies { ...F } } }`,
];

export const HEAVY_OPERATION = 'CompileHeavy';

export function compileHeavyDocument(variant = 0): string {
  // Seven root fields, 14 aliases each: within the 15 names one field may have.
  const roots = Array.from({ length: 98 }, (_, i) => ROOTS[i % ROOTS.length]!(i));
  const aliases = Array.from({ length: 98 }, (_, i) => `v${variant}a${i}: __typename`);
  return `query ${HEAVY_OPERATION} { ${roots.join(' ')} }\nfragment F on Movie { ${aliases.join(' ')} }`;
}
