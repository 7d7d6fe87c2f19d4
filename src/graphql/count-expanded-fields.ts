/**
 * How many fields one operation asks for once every fragment spread is expanded: what graphql-jit
 * writes code for, so what compiling it costs in time and memory. A fragment spread 98 times counts 98
 * times (a few hundred bytes of document can stand for thousands of fields), yet the count is linear in
 * the document (docs/errors.md, Operation bounds: every bound in linear time): each fragment is counted once and its count memoized by name. A cycle
 * or an unknown fragment counts nothing (validation refuses both); sums saturate, so a doubling chain
 * reports a large finite figure.
 */
import { Kind, getOperationAST, type DocumentNode, type SelectionSetNode } from 'graphql';
import { fragmentsOf } from './fragments-of.js';

/** Far above any bound, far below where doubles stop counting exactly. */
const CEILING = 1e15;

const saturate = (n: number) => (n > CEILING ? CEILING : n);

/** The operation's expanded field count; 0 when the document has no such operation. */
export function countExpandedFields(document: DocumentNode, operationName?: string | null): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  const fragments = fragmentsOf(document);
  const counted = new Map<string, number | 'pending'>();

  function countFragment(name: string): number {
    const known = counted.get(name);
    if (known !== undefined) return known === 'pending' ? 0 : known;
    const fragment = fragments.get(name);
    if (!fragment) return 0;
    counted.set(name, 'pending');
    const count = countSet(fragment.selectionSet);
    counted.set(name, count);
    return count;
  }

  function countSet(set: SelectionSetNode): number {
    let count = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        count += 1 + (selection.selectionSet ? countSet(selection.selectionSet) : 0);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        count += countFragment(selection.name.value);
      } else {
        count += countSet(selection.selectionSet);
      }
      count = saturate(count);
    }
    return count;
  }

  return countSet(operation.selectionSet);
}
