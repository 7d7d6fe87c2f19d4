/** A document's fragment definitions by name: what every walk over an operation looks spreads up in. */
import { Kind, type DocumentNode, type FragmentDefinitionNode } from 'graphql';

export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  return fragments;
}
