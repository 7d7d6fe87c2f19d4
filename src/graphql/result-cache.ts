/**
 * The result cache: results of reads whose answer depends on nothing but their document, variables and
 * (for some) the caller's account, keyed by document, operation and variables. Which reads qualify is
 * the schema's to say: every root field of the query carries @sharedResult (and its `unlessTrue`
 * argument is not true) or @viewerResult, and no field below the root has an @auth role or @selfOrAdmin
 * (those depend on who asks). A caller whose token lacks a scope the document needs is never served from
 * it (it must get its FORBIDDEN), and anonymous callers are not asked for scopes, so anyone served from
 * the cache would have got the same answer. Only results without errors are kept.
 *
 * A read with a @viewerResult root is kept under the caller's account id, and only while the store's
 * change feed is live (src/store/account-changes.ts): a change to that account's own rows, however it
 * is made and on whichever replica, forgets its entries as soon as the notice arrives (at once on
 * SQLite; at commit on PostgreSQL, milliseconds), and such an entry lives at most
 * VIEWER_RESULT_MAX_AGE_MS, which bounds what a notice lost on a connection that looks alive can cost,
 * as the account check's memory does. What such a read shows of shared data (titles, ratings) is as
 * fresh as any shared result.
 *
 * Every executed mutation clears it (the simplest invalidation that is always right), here and, through
 * `onInvalidate`, on the other replicas (src/shared-state/share-invalidations.ts); a result computed while a
 * write happened is not kept (a generation counter), so a read that raced a write cannot put stale data
 * back. The exception is a mutation made only of @ownRows fields, @writesNoRows ones (signing in) and
 * ones refused this caller before their resolvers ran (src/graphql/own-rows-writes.ts): it wrote only its
 * caller's own rows, if any, which no shared result shows, so it forgets only the caller's entries
 * here, at once (its next read here shows the write), and the change feed's notice forgets them on every
 * replica, as for a change made in SQL. A read of the caller's that raced it was keyed under the count
 * the write moved on, so it cannot put stale data back either. Entries also expire after `ttlMs`, which
 * bounds staleness where another replica's write cannot reach this one. Bounded by the size of the
 * results it holds, as JSON, and of their keys (lru-cache).
 */
import { getDirective } from '@graphql-tools/utils';
import {
  getNamedType,
  getOperationAST,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { ACCOUNT_MAX_AGE_MS } from '../auth/account-check.js';
import type { Identity } from '../auth/identity.js';
import type { AccountChanges } from '../store/account-changes.js';
import { authRuleOf, missingScopes } from './auth-directives.js';
import { fragmentsOf } from './fragments-of.js';
import { ownRowsWrites } from './own-rows-writes.js';
import { perOperation } from './per-operation.js';

/** The longest a caller's own result is served without a change notice (as a remembered account). */
export const VIEWER_RESULT_MAX_AGE_MS = ACCOUNT_MAX_AGE_MS;
/** Accounts whose changes are counted one by one; past this, all their entries are forgotten at once. */
const MAX_COUNTED_VIEWERS = 10_000;

export interface ResultCacheOptions {
  /** Upper bound on the (JSON) size of the results kept, in bytes. */
  maxBytes: number;
  /** How long a result may be served after it was computed. */
  ttlMs: number;
  /** Observes every lookup of a shareable read (metrics: hit rate). */
  onLookup?: (hit: boolean) => void;
}

export interface ResultCache {
  /** The key this execution's result is shared under; undefined when it is not a shareable read. */
  keyOf(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown> | null | undefined,
    viewer: Identity | null,
  ): string | undefined;
  get(key: string): ExecutionResult | undefined;
  /** Taken before executing: `set` keeps a result only if no write happened since. */
  generation(): number;
  set(key: string, result: ExecutionResult, generation: number): void;
  /** A mutation was executed here: forget what it may have changed (everything, or its caller's entries). */
  wrote(document: DocumentNode, operationName: string | null | undefined, viewer: Identity | null): void;
  /** A write happened (here, or on another replica when `announce` is false): forget everything. */
  invalidate(announce?: boolean): void;
  /** Told of every local invalidation (to pass it on to the other replicas). */
  onInvalidate(listener: () => void): void;
  /**
   * Follows the store's feed of changes to accounts and their own rows: from then on, reads with a
   * @viewerResult root are kept per account, while the feed is live. Until then they are not kept.
   */
  followViewers(feed: Pick<AccountChanges, 'listening' | 'onChange' | 'onOwnedRowsChange'>): void;
}

/** What makes a shareable document's result its caller's own after all: an argument that is true. */
interface PersonalArgument {
  value: ValueNode | undefined;
  schemaDefault: unknown;
}

interface Shareability {
  /** A root field is @viewerResult: the answer is the caller's own, kept under its account. */
  perViewer: boolean;
  /** Scopes a signed-in caller's token must carry (else the answer would be FORBIDDEN, not shared). */
  scopes: readonly string[];
  personal: readonly PersonalArgument[];
  variables: ReadonlyMap<string, VariableDefinitionNode>;
}

/** Variables longer than this (as JSON) make a key not worth keeping: such reads are not shared. */
const MAX_VARIABLES_KEY = 4096;

type FieldRule = {
  personal: boolean;
  shared: boolean;
  viewer: boolean;
  unlessTrue?: string;
  scopes: readonly string[];
};

export function createResultCache(schema: GraphQLSchema, options: ResultCacheOptions): ResultCache {
  const entries = new LRUCache<string, ExecutionResult>({
    maxSize: options.maxBytes,
    // The key counts too: it holds the variables (up to MAX_VARIABLES_KEY, declared or not), and a small
    // answer under a long key ({ __typename }, an empty watch list) would otherwise cost its key's size
    // in memory while counting a few bytes, so RESULT_CACHE_MB bounded little.
    sizeCalculation: (result, key) => JSON.stringify(result.data ?? null).length + key.length,
    ttl: options.ttlMs,
  });
  const listeners: (() => void)[] = [];
  let generation = 0;
  const rules = new Map<GraphQLField<unknown, unknown>, FieldRule>();
  const documentIds = new WeakMap<DocumentNode, number>();
  let nextDocumentId = 0;
  const queryType = schema.getQueryType();
  const writesOnlyOwnRows = ownRowsWrites(schema);

  function ruleOf(field: GraphQLField<unknown, unknown>): FieldRule {
    let rule = rules.get(field);
    if (!rule) {
      const auth = authRuleOf(schema, field);
      const shared = getDirective(schema, field, 'sharedResult')?.[0];
      rule = {
        personal: auth?.requires !== undefined || getDirective(schema, field, 'selfOrAdmin') !== undefined,
        shared: shared !== undefined,
        viewer: getDirective(schema, field, 'viewerResult') !== undefined,
        unlessTrue: (shared?.unlessTrue as string | null | undefined) ?? undefined,
        scopes: auth?.scopes ?? [],
      };
      rules.set(field, rule);
    }
    return rule;
  }

  /** Walks the operation once (each fragment once): null when some field makes it the caller's own. */
  function analyse(document: DocumentNode, operationName: string | null | undefined): Shareability | null {
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation !== 'query' || !queryType) return null;
    const fragments = fragmentsOf(document);
    const scopes = new Set<string>();
    const personal: PersonalArgument[] = [];
    const visited = new Set<string>();
    let perViewer = false;

    const walk = (selectionSet: SelectionSetNode, parent: GraphQLNamedType): boolean => {
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FRAGMENT_SPREAD) {
          const fragment = fragments.get(selection.name.value);
          if (!fragment) return false;
          if (visited.has(fragment.name.value)) continue;
          visited.add(fragment.name.value);
          const type = schema.getType(fragment.typeCondition.name.value);
          if (!type || !walk(fragment.selectionSet, type)) return false;
          continue;
        }
        if (selection.kind === Kind.INLINE_FRAGMENT) {
          const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
          if (!type || !walk(selection.selectionSet, type)) return false;
          continue;
        }
        const name = selection.name.value;
        if (name === '__typename') continue;
        // A union has no fields of its own; introspection fields (__schema, __type) are not in getFields.
        if (!isObjectType(parent) && !isInterfaceType(parent)) return false;
        const field = parent.getFields()[name] as GraphQLField<unknown, unknown> | undefined;
        if (!field) return false;
        const rule = ruleOf(field);
        // A @viewerResult root may require a role, and nothing checks it on a hit (the authorization
        // policy checks keyed writes only): the entry is the account's own, computed with its role, and a
        // role change forgets it. So such a root must not require more than USER, which every local
        // account's token carries, even when the account check caps an unconfirmed role at USER.
        const viewerRoot = parent === queryType && rule.viewer;
        if (viewerRoot) perViewer = true;
        else if (rule.personal || (parent === queryType && !rule.shared)) return false;
        rule.scopes.forEach((scope) => scopes.add(scope));
        if (parent === queryType && rule.unlessTrue !== undefined) {
          const argument = field.args.find((a) => a.name === rule.unlessTrue);
          personal.push({
            value: selection.arguments?.find((a) => a.name.value === rule.unlessTrue)?.value,
            schemaDefault: argument?.defaultValue,
          });
        }
        if (selection.selectionSet && !walk(selection.selectionSet, getNamedType(field.type))) return false;
      }
      return true;
    };

    if (!walk(operation.selectionSet, queryType)) return null;
    const variables = new Map(
      (operation.variableDefinitions ?? []).map((definition) => [definition.variable.name.value, definition]),
    );
    return { perViewer, scopes: [...scopes], personal, variables };
  }

  const shareabilityOf = perOperation(analyse);

  /** Whether a personal argument is true in this request (a literal, a variable, or a default). */
  function isTrue(
    argument: PersonalArgument,
    shareability: Shareability,
    variables: Record<string, unknown> | null | undefined,
  ): boolean {
    const { value } = argument;
    if (value === undefined) return argument.schemaDefault === true;
    if (value.kind === Kind.BOOLEAN) return value.value;
    if (value.kind !== Kind.VARIABLE) return true;
    const given = variables?.[value.name.value];
    if (given !== undefined) return given === true || (given === null && argument.schemaDefault === true);
    const fallback = shareability.variables.get(value.name.value)?.defaultValue;
    if (fallback === undefined) return argument.schemaDefault === true;
    return fallback.kind !== Kind.BOOLEAN || fallback.value;
  }

  // Viewer entries are keyed by the account's change count: a change makes its old keys unreachable
  // (they age out of the LRU), and a change to anyone (null) or too many counts bumps the epoch.
  let viewerFeed: Pick<AccountChanges, 'listening'> | undefined;
  let viewerEpoch = 0;
  const viewerChanges = new Map<number, number>();
  const forgetViewer = (userId: number | null) => {
    if (userId === null || (!viewerChanges.has(userId) && viewerChanges.size >= MAX_COUNTED_VIEWERS)) {
      viewerEpoch += 1;
      viewerChanges.clear();
      if (userId === null) return;
    }
    viewerChanges.set(userId, (viewerChanges.get(userId) ?? 0) + 1);
  };

  /** The caller's part of a viewer entry's key; undefined when its answer cannot be kept now. */
  function viewerScope(viewer: Identity | null): string | undefined {
    const userId = viewer?.userId;
    // listening(), not live(): every signed-in request passes the account check (src/auth/account-check.ts)
    // before it runs, and its live() has reported other SQLite connections' commits made before this
    // request began; reading data_version again would cost 5 µs and could only add later commits.
    // test/graphql/viewer-results.test.ts pins this (a change by another connection, on B's next read).
    if (userId === null || userId === undefined || viewerFeed?.listening() !== true) return undefined;
    return `v${viewerEpoch}.${userId}.${viewerChanges.get(userId) ?? 0}`;
  }

  function invalidate(announce = true) {
    generation += 1;
    entries.clear();
    if (announce) for (const listener of listeners) listener();
  }

  return {
    keyOf(document, operationName, variables, viewer) {
      const shareability = shareabilityOf(document, operationName);
      if (!shareability) return undefined;
      if (missingScopes(viewer, shareability.scopes).length > 0) return undefined;
      if (shareability.personal.some((argument) => isTrue(argument, shareability, variables)))
        return undefined;
      let variablesKey: string;
      try {
        variablesKey = JSON.stringify(variables ?? {});
      } catch {
        // Nested too deep to serialize (coercion will refuse them anyway): nothing to share.
        return undefined;
      }
      if (variablesKey.length > MAX_VARIABLES_KEY) return undefined;
      const scope = shareability.perViewer ? viewerScope(viewer) : 's';
      if (scope === undefined) return undefined;
      let id = documentIds.get(document);
      if (id === undefined) documentIds.set(document, (id = nextDocumentId++));
      return `${scope}\u0000${id}\u0000${operationName ?? ''}\u0000${variablesKey}`;
    },
    get(key) {
      const hit = entries.get(key);
      options.onLookup?.(hit !== undefined);
      return hit;
    },
    generation: () => generation,
    set(key, result, since) {
      if (since !== generation || result.errors) return;
      const ttl = key.startsWith('v') ? Math.min(options.ttlMs, VIEWER_RESULT_MAX_AGE_MS) : undefined;
      entries.set(key, Object.freeze(result), ttl === undefined ? undefined : { ttl });
    },
    wrote(document, operationName, viewer) {
      if (!writesOnlyOwnRows(document, operationName, viewer)) return invalidate();
      // A caller without an account id has no entries kept (keyOf), and no own rows a shared answer shows:
      // nothing to forget, so an anonymous `mutation { __typename }` clears no replica's cache.
      const userId = viewer?.userId;
      if (userId !== null && userId !== undefined) forgetViewer(userId);
    },
    invalidate,
    onInvalidate(listener) {
      listeners.push(listener);
    },
    followViewers(feed) {
      viewerFeed = feed;
      // A deleted or re-created account, and any change to its own rows.
      feed.onChange(forgetViewer);
      feed.onOwnedRowsChange(forgetViewer);
    },
  };
}
