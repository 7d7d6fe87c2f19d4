/**
 * Bounds on an operation's shape, checked once per document before the standard validation rules (some
 * of which are super-linear): unknown fields and fragments are skipped and a fragment cycle counts
 * nothing, since validation reports those anyway.
 * - depth: the deepest nesting of fields;
 * - cost: how many values a response can hold. Each field counts 1, and a list multiplies what is under it
 *   by its length: the number of ids given (moviesByIds), else the page size of the field above it (a
 *   literal `size`), the largest allowed (100) when either comes from a variable, or a default of 10. It
 *   is an upper bound: every fragment spread is counted, even where execution would merge two spreads of
 *   one fragment;
 * - aliases: how many response names one field may have in one selection set (fragments included), so a
 *   document cannot multiply an expensive field under aliases;
 * - sign-in: at most one `login` or `register` per operation (each is a deliberately slow password hash).
 * Introspection fields are left out: graphql-js's own MaxIntrospectionDepthRule bounds them, and
 * GraphiQL's introspection query is deeper than any data query needs to be.
 *
 * Linear time, so a bound an attacker aims at stays cheap: every selection set is measured once. A fragment's measure is memoized by
 * name, and the one thing it takes from where it is spread (the page size of the field it sits under) is
 * factored out: its cost is `perItem × pageSize + fixed`. Arithmetic saturates, so a bomb that would
 * overflow reports a large finite figure, never Infinity or NaN.
 */
import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { fragmentsOf } from './fragments-of.js';

/**
 * Bounds on a document's size checked before graphql-js validates it, because some of its standard rules
 * are super-linear: OverlappingFieldsCanBeMerged compares every pair of same-named fields and of fragment
 * spreads in a selection set (measured: 200 to 450 ms on 5,000-token documents before its own budget
 * stops it), and each operation is validated against the whole document. No real client document comes
 * near these.
 */
const MAX_SELECTIONS_PER_SET = 100;
const MAX_DEFINITIONS = 100;

/** One linear walk over the AST; the first bound broken is reported. */
export function checkDocumentSize(document: DocumentNode): GraphQLError[] {
  const refuse = (message: string, limit: string) => [
    new GraphQLError(message, { extensions: { classification: 'BAD_REQUEST', limit } }),
  ];
  if (document.definitions.length > MAX_DEFINITIONS) {
    return refuse(
      `The document has ${document.definitions.length} operations and fragments; the limit is ${MAX_DEFINITIONS}`,
      'definitions',
    );
  }
  const pending: SelectionSetNode[] = [];
  for (const definition of document.definitions) {
    if ('selectionSet' in definition && definition.selectionSet) pending.push(definition.selectionSet);
  }
  for (let set = pending.pop(); set; set = pending.pop()) {
    if (set.selections.length > MAX_SELECTIONS_PER_SET) {
      return refuse(
        `A selection set has ${set.selections.length} fields and fragments; the limit is ${MAX_SELECTIONS_PER_SET}`,
        'selections',
      );
    }
    for (const selection of set.selections) {
      if ('selectionSet' in selection && selection.selectionSet) pending.push(selection.selectionSet);
    }
  }
  return [];
}

export interface OperationLimits {
  maxDepth: number;
  maxCost: number;
  /** Most response names (aliases) one field may have in one selection set. */
  maxFieldAliases: number;
}

/** Assumed length of a list whose size the operation does not state. */
const DEFAULT_LIST_LENGTH = 10;
/** A `size` (or a list argument) given through a variable is assumed to be the largest the schema allows. */
const VARIABLE_LIST_LENGTH = 100;
/** Costs saturate here: far above any limit, far below where doubles lose integers or overflow. */
const COST_CEILING = 1e15;
/** Root fields that each hash a password on purpose (slow by design): one per operation. */
const SIGN_IN_FIELDS = new Set(['login', 'register']);

const saturate = (n: number) => (n > COST_CEILING ? COST_CEILING : n);

interface SetMeasure {
  depth: number;
  /** Cost of the list fields at this level, per unit of the page size of the field this set belongs to. */
  perItem: number;
  /** Cost that does not depend on that page size. */
  fixed: number;
  /** Field name → response names it is asked under at this level (capped one past the limit). */
  aliases: Map<string, Set<string>>;
  /** The first field asked under too many names, here or anywhere below. */
  violation?: AliasViolation;
}

interface AliasViolation {
  field: string;
  node: FieldNode | FragmentDefinitionNode | OperationDefinitionNode;
}

/** The page size a field asks for, which sets the length of the lists in its result (MoviePage.content). */
function pageSizeOf(args: readonly ArgumentNode[] | undefined): number | undefined {
  const size = args?.find((arg) => arg.name.value === 'size');
  if (size?.value.kind === Kind.INT) return Math.max(0, Number(size.value.value));
  if (size?.value.kind === Kind.VARIABLE) return VARIABLE_LIST_LENGTH;
  return undefined;
}

/** A list field's own length when a list argument sets it: moviesByIds(ids) gives one entry per id. */
function ownListLength(
  field: GraphQLField<unknown, unknown>,
  args: readonly ArgumentNode[] | undefined,
): number | undefined {
  let length: number | undefined;
  for (const arg of args ?? []) {
    if (arg.value.kind === Kind.LIST) {
      length = Math.max(length ?? 0, arg.value.values.length);
    } else if (arg.value.kind === Kind.VARIABLE) {
      const definition = field.args.find((candidate) => candidate.name === arg.name.value);
      if (definition && isListType(getNullableType(definition.type))) length = VARIABLE_LIST_LENGTH;
    }
  }
  return length;
}

/** One operation's measures, as the limits compare them (validateGraphQL reports them too). */
export interface OperationMeasure {
  definition: OperationDefinitionNode;
  depth: number;
  /** Saturated at COST_CEILING. */
  cost: number;
  /** The first field asked under more than `maxFieldAliases` names, if any. */
  aliasViolation?: AliasViolation;
  /** How many login or register fields the operation selects at its root. */
  signIns: number;
}

/** Measures every operation of the document in one linear walk (fragments memoized by name). */
export function measureOperations(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: Pick<OperationLimits, 'maxFieldAliases'>,
): OperationMeasure[] {
  const fragments = fragmentsOf(document);
  const measured = new Map<string, SetMeasure | 'pending'>();

  /** Adds one response name for a field; remembers the first field asked under too many names. */
  function addAlias(
    into: SetMeasure,
    field: string,
    responseName: string,
    node: AliasViolation['node'],
  ): void {
    let names = into.aliases.get(field);
    if (!names) into.aliases.set(field, (names = new Set()));
    // Capped one past the limit, so merging a fragment's names costs a bounded amount.
    if (names.size > limits.maxFieldAliases) return;
    names.add(responseName);
    if (names.size > limits.maxFieldAliases) into.violation ??= { field, node };
  }

  function measureFragment(name: string): SetMeasure | undefined {
    const known = measured.get(name);
    // 'pending' is a cycle, which validation refuses; it contributes nothing here.
    if (known) return known === 'pending' ? undefined : known;
    const fragment = fragments.get(name);
    const type = fragment && schema.getType(fragment.typeCondition.name.value);
    if (!fragment || !type || !isCompositeType(type)) return undefined;
    measured.set(name, 'pending');
    const measure = measureSet(fragment.selectionSet, type, fragment);
    measured.set(name, measure);
    return measure;
  }

  function measureSet(
    selectionSet: SelectionSetNode,
    parent: GraphQLCompositeType,
    owner: AliasViolation['node'],
  ): SetMeasure {
    const result: SetMeasure = { depth: 0, perItem: 0, fixed: 0, aliases: new Map() };
    const include = (inner: SetMeasure, node: AliasViolation['node']) => {
      result.depth = Math.max(result.depth, inner.depth);
      result.perItem = saturate(result.perItem + inner.perItem);
      result.fixed = saturate(result.fixed + inner.fixed);
      result.violation ??= inner.violation;
      for (const [field, names] of inner.aliases) {
        for (const name of names) addAlias(result, field, name, node);
      }
    };
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name.startsWith('__')) continue;
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
        if (!field) continue;
        addAlias(result, name, selection.alias?.value ?? name, selection);
        const childType = getNamedType(field.type);
        let childCost = 0;
        let childDepth = 0;
        if (selection.selectionSet && isCompositeType(childType)) {
          const child = measureSet(selection.selectionSet, childType, selection);
          const length = pageSizeOf(selection.arguments) ?? DEFAULT_LIST_LENGTH;
          childCost = saturate(saturate(child.perItem * length) + child.fixed);
          childDepth = child.depth;
          result.violation ??= child.violation;
        }
        const own = saturate(1 + childCost);
        const ownLength = isListType(getNullableType(field.type))
          ? ownListLength(field, selection.arguments)
          : 1;
        // A list without a length of its own takes the page size of the field above it (perItem).
        if (ownLength === undefined) result.perItem = saturate(result.perItem + own);
        else result.fixed = saturate(result.fixed + saturate(own * ownLength));
        result.depth = Math.max(result.depth, childDepth + 1);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const inner = measureFragment(selection.name.value);
        if (inner) include(inner, fragments.get(selection.name.value)!);
      } else {
        const condition = selection.typeCondition && schema.getType(selection.typeCondition.name.value);
        const type = condition && isCompositeType(condition) ? condition : parent;
        include(measureSet(selection.selectionSet, type, owner), owner);
      }
    }
    return result;
  }

  const measures: OperationMeasure[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = schema.getRootType(definition.operation);
    if (!root) continue;
    const measure = measureSet(definition.selectionSet, root, definition);
    // Root lists (search, watchlist, recommendations) have no page size above them: the default.
    const cost = saturate(saturate(measure.perItem * DEFAULT_LIST_LENGTH) + measure.fixed);
    const signIns = [...SIGN_IN_FIELDS].reduce(
      (count, field) => count + (measure.aliases.get(field)?.size ?? 0),
      0,
    );
    measures.push({
      definition,
      depth: measure.depth,
      cost,
      signIns,
      ...(measure.violation ? { aliasViolation: measure.violation } : {}),
    });
  }
  return measures;
}

export function checkOperationLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: OperationLimits,
): GraphQLError[] {
  const errors: GraphQLError[] = [];
  for (const { definition, depth, cost, aliasViolation, signIns } of measureOperations(
    schema,
    document,
    limits,
  )) {
    const name = definition.name ? `Operation ${definition.name.value}` : 'The operation';
    if (depth > limits.maxDepth) {
      errors.push(
        new GraphQLError(`${name} is nested ${depth} levels deep; the limit is ${limits.maxDepth}`, {
          nodes: definition,
          extensions: { classification: 'BAD_REQUEST', limit: 'depth' },
        }),
      );
    }
    if (cost > limits.maxCost) {
      const figure = cost >= COST_CEILING ? `over ${COST_CEILING}` : String(cost);
      errors.push(
        new GraphQLError(
          `${name} has an estimated cost of ${figure}; the limit is ${limits.maxCost}. Ask for smaller pages or fewer fields`,
          { nodes: definition, extensions: { classification: 'BAD_REQUEST', limit: 'cost' } },
        ),
      );
    }
    if (aliasViolation) {
      errors.push(
        new GraphQLError(
          `${name} asks for the field "${aliasViolation.field}" under more than ${limits.maxFieldAliases} names (aliases) in one selection set; the limit is ${limits.maxFieldAliases}`,
          {
            nodes: aliasViolation.node,
            extensions: { classification: 'BAD_REQUEST', limit: 'aliases', field: aliasViolation.field },
          },
        ),
      );
    }
    if (definition.operation === 'mutation' && signIns > 1) {
      errors.push(
        new GraphQLError(
          `${name} signs in or registers more than once; send at most one login or register per request`,
          {
            nodes: definition,
            extensions: { classification: 'BAD_REQUEST', limit: 'signIn' },
          },
        ),
      );
    }
  }
  return errors;
}
