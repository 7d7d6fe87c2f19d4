/**
 * Remembers an analysis of a document's operation, per parsed document and operation name, so it runs
 * once however many times that document is executed. Held weakly: a document let go of takes its
 * answers with it.
 */
import type { DocumentNode } from 'graphql';

type Analyse<T> = (document: DocumentNode, operationName: string | null | undefined) => T;

export function perOperation<T>(analyse: Analyse<T>): Analyse<T> {
  const analysed = new WeakMap<DocumentNode, Map<string, T>>();
  return (document, operationName) => {
    let byName = analysed.get(document);
    if (!byName) analysed.set(document, (byName = new Map()));
    const name = operationName ?? '';
    if (!byName.has(name)) byName.set(name, analyse(document, operationName));
    return byName.get(name)!;
  };
}
