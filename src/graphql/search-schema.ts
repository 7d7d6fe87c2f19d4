/**
 * Keyword search over the part of the schema a caller may use (the searchSchema tool): the types,
 * fields, arguments and enum values whose name or description holds a keyword, printed as minified SDL
 * with their descriptions, the types they lead to printed whole to a stated depth, and the root fields
 * that reach them. What a caller may use is what the executor would let it reach: the types reachable
 * from Query (and Mutation, when writes are allowed) through fields whose @auth rule this caller passes
 * (the rule `assertAllowed` enforces per field), so a field only administrators may use is not shown to
 * anyone else. An answer never holds more than `maxChars` of SDL, so no keyword can pull in the whole
 * schema at once: what does not fit is counted, for a narrower search.
 */
import {
  astFromValue,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  isUnionType,
  print,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { getDirective } from '@graphql-tools/utils';
import type { Identity } from '../auth/identity.js';
import { assertAllowed, authRuleOf, type AuthRule } from './auth-directives.js';

export interface SchemaSearchRequest {
  /** Words to look for, in any case; punctuation separates them. */
  keywords: string;
  viewer: Identity | null;
  /** Whether the Mutation root belongs to what the caller may use. */
  mutations: boolean;
  /** Most characters of SDL one answer holds. */
  maxChars: number;
  /** How many steps from a match the types it leads to are printed whole. */
  depth: number;
}

export interface SchemaSearchAnswer {
  /** Minified SDL: one definition per line; a matched type shows only its matching fields. */
  sdl: string;
  /** Schema coordinates of the matches printed (Type, Type.field, Type.field(argument:)), best first. */
  matches: string[];
  /** Matches left out to stay within the budget: search with more specific keywords for them. */
  omitted: number;
  depth: number;
}

/** Most keywords one search takes; the rest are ignored. */
const MAX_KEYWORDS = 8;
/** Root fields shown per printed type, as the ways to reach it. */
const ENTRIES_PER_TYPE = 2;

type Field = GraphQLField<unknown, unknown> | GraphQLInputField;

/** The types a caller may use, with the fields of each it may use (all of an input type's). */
interface View {
  types: Map<string, GraphQLNamedType>;
  fields: Map<string, Field[]>;
}

/** What a search looks for: the stems of its words, and its words as whole names. */
interface Search {
  keywords: readonly string[];
  names: ReadonlySet<string>;
}

interface Match {
  coordinate: string;
  typeName: string;
  /** The field that matched (itself or one of its arguments); undefined when the type did. */
  field?: Field;
  score: number;
}

/**
 * Endings a word may have beyond its stem, so that "directors" finds "director", "directed" and
 * "directs" but not "direction", and "movie" finds "movies".
 */
const ENDINGS = ['ings', 'ing', 'ors', 'ers', 'es', 'ed', 'or', 'er', 's', 'd', 'e', ''];

/** The stems of the search's words (camelCase split), lower-cased; the shortest stem kept is three letters. */
function keywordsOf(text: string): string[] {
  const words = [...new Set(wordsOf(text))].filter((word) => word.length >= 2);
  return words.slice(0, MAX_KEYWORDS).map((word) => {
    const ending = ENDINGS.find((end) => end && word.endsWith(end) && word.length - end.length >= 3);
    return ending ? word.slice(0, -ending.length) : word;
  });
}

/** The words of a name (camelCase and snake_case split) or of a description, lower-cased. */
function wordsOf(text: string | null | undefined): string[] {
  if (!text) return [];
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const holds = (words: readonly string[], stem: string) =>
  words.some((word) => word.startsWith(stem) && ENDINGS.includes(word.slice(stem.length)));

/** A name's word counts three (a name asked for whole, five more), a description's one. */
function scoreOf(search: Search, name: string, description: string | null | undefined): number {
  const nameWords = wordsOf(name);
  let descriptionWords: string[] | undefined;
  let score = search.names.has(name.toLowerCase()) ? 5 : 0;
  for (const keyword of search.keywords) {
    if (holds(nameWords, keyword)) score += 3;
    else if (holds((descriptionWords ??= wordsOf(description)), keyword)) score += 1;
  }
  return score;
}

const described = (description: string | null | undefined) =>
  description ? `${JSON.stringify(description.replace(/\s+/g, ' ').trim())} ` : '';

function printArgument(argument: GraphQLArgument | GraphQLInputField): string {
  const defaultValue =
    argument.defaultValue === undefined ? undefined : astFromValue(argument.defaultValue, argument.type);
  return `${described(argument.description)}${argument.name}:${String(argument.type)}${defaultValue ? `=${print(defaultValue)}` : ''}`;
}

export function createSchemaSearch(schema: GraphQLSchema) {
  const rules = new Map<Field, AuthRule | null>();
  const ruleOf = (field: GraphQLField<unknown, unknown>) => {
    let rule = rules.get(field);
    if (rule === undefined) rules.set(field, (rule = authRuleOf(schema, field) ?? null));
    return rule;
  };
  const selfOrAdmin = (field: Field) => getDirective(schema, field, 'selfOrAdmin')?.[0] !== undefined;
  const views = new Map<string, View>();

  /** Walks from the roots through the fields this caller passes; computed once per kind of caller. */
  function viewFor(viewer: Identity | null, mutations: boolean): View {
    const key = `${mutations}\u0000${viewer ? `${viewer.role}\u0000${[...viewer.scopes].sort().join(' ')}` : ''}`;
    const known = views.get(key);
    if (known) return known;
    const view: View = { types: new Map(), fields: new Map() };
    const pending: GraphQLNamedType[] = [];
    const reach = (type: GraphQLNamedType | null | undefined) => {
      if (!type || view.types.has(type.name) || type.name.startsWith('__')) return;
      view.types.set(type.name, type);
      pending.push(type);
    };
    reach(schema.getQueryType());
    if (mutations) reach(schema.getMutationType());
    for (let type = pending.pop(); type; type = pending.pop()) {
      if (isObjectType(type) || isInterfaceType(type)) {
        const usable = Object.values(type.getFields()).filter((field) => {
          const rule = ruleOf(field);
          if (!rule) return true;
          try {
            assertAllowed(viewer, rule, field.name);
            return true;
          } catch {
            return false;
          }
        });
        view.fields.set(type.name, usable);
        for (const field of usable) {
          reach(getNamedType(field.type));
          for (const argument of field.args) reach(getNamedType(argument.type));
        }
        if (isInterfaceType(type)) for (const member of schema.getPossibleTypes(type)) reach(member);
      } else if (isInputObjectType(type)) {
        const fields = Object.values(type.getFields());
        view.fields.set(type.name, fields);
        for (const field of fields) reach(getNamedType(field.type));
      } else if (isUnionType(type)) {
        for (const member of type.getTypes()) reach(member);
      }
    }
    views.set(key, view);
    return view;
  }

  function findMatches(view: View, search: Search): Match[] {
    const matches: Match[] = [];
    for (const type of view.types.values()) {
      if (isSpecifiedScalarType(type)) continue;
      const typeScore = scoreOf(search, type.name, type.description);
      if (typeScore > 0) matches.push({ coordinate: type.name, typeName: type.name, score: typeScore + 1 });
      for (const field of view.fields.get(type.name) ?? []) {
        let score = scoreOf(search, field.name, field.description);
        let coordinate = `${type.name}.${field.name}`;
        for (const argument of 'args' in field ? field.args : []) {
          const argumentScore = scoreOf(search, argument.name, argument.description);
          if (argumentScore > score) coordinate = `${type.name}.${field.name}(${argument.name}:)`;
          score = Math.max(score, argumentScore);
        }
        if (score > 0) matches.push({ coordinate, typeName: type.name, field, score });
      }
      if (isEnumType(type)) {
        for (const value of type.getValues()) {
          const score = scoreOf(search, value.name, value.description);
          if (score > 0)
            matches.push({ coordinate: `${type.name}.${value.name}`, typeName: type.name, score });
        }
      }
    }
    return matches.sort((a, b) => b.score - a.score || a.coordinate.localeCompare(b.coordinate));
  }

  function printType(view: View, type: GraphQLNamedType, only?: ReadonlySet<Field>): string {
    const head = described(type.description);
    if (isScalarType(type)) return `${head}scalar ${type.name}`;
    if (isUnionType(type)) return `${head}union ${type.name}=${type.getTypes().join('|')}`;
    if (isEnumType(type)) {
      const values = type.getValues().map((value) => `${described(value.description)}${value.name}`);
      return `${head}enum ${type.name}{${values.join(' ')}}`;
    }
    const fields = (view.fields.get(type.name) ?? []).filter((field) => !only || only.has(field));
    if (isInputObjectType(type)) {
      const oneOf = (type as { isOneOf?: boolean }).isOneOf ? ' @oneOf' : '';
      const inputFields = fields.map((field) => printArgument(field as GraphQLInputField));
      return `${head}input ${type.name}${oneOf}{${inputFields.join(' ')}}`;
    }
    const kind = isInterfaceType(type) ? 'interface' : 'type';
    const interfaces = isObjectType(type) || isInterfaceType(type) ? type.getInterfaces() : [];
    const implementsPart = interfaces.length > 0 ? ` implements ${interfaces.join('&')}` : '';
    const printed = fields.map((field) => {
      const args =
        'args' in field && field.args.length > 0 ? `(${field.args.map(printArgument).join(' ')})` : '';
      return `${described(field.description)}${field.name}${args}:${String(field.type)}${selfOrAdmin(field) ? ' @selfOrAdmin' : ''}`;
    });
    return `${head}${kind} ${type.name}${implementsPart}{${printed.join(' ')}}`;
  }

  return function searchSchema(request: SchemaSearchRequest): SchemaSearchAnswer {
    const view = viewFor(request.viewer, request.mutations);
    const matches = findMatches(view, {
      keywords: keywordsOf(request.keywords),
      names: new Set(request.keywords.toLowerCase().split(/[^a-z0-9_]+/)),
    });
    // What to print, in order: each match's type (whole, or its matching fields), then the types the
    // matches lead to, whole, to the stated depth, then the root fields that reach what was printed.
    const plan = new Map<string, Set<Field> | 'whole'>();
    const matchesOf = new Map<string, Match[]>();
    const leadsTo: GraphQLNamedType[] = [];
    const follow = (field: Field) => {
      leadsTo.push(getNamedType(field.type));
      for (const argument of 'args' in field ? field.args : []) leadsTo.push(getNamedType(argument.type));
    };
    for (const match of matches) {
      matchesOf.set(match.typeName, [...(matchesOf.get(match.typeName) ?? []), match]);
      const planned = plan.get(match.typeName);
      if (!match.field) {
        plan.set(match.typeName, 'whole');
        for (const field of view.fields.get(match.typeName) ?? []) follow(field);
      } else {
        if (planned !== 'whole') plan.set(match.typeName, (planned ?? new Set()).add(match.field));
        follow(match.field);
      }
    }
    let frontier = leadsTo;
    for (let level = 0; level < request.depth; level++) {
      const next: GraphQLNamedType[] = [];
      for (const type of frontier) {
        if (plan.has(type.name) || !view.types.has(type.name) || isSpecifiedScalarType(type)) continue;
        plan.set(type.name, 'whole');
        for (const field of view.fields.get(type.name) ?? []) next.push(getNamedType(field.type));
      }
      frontier = next;
    }
    const roots = [schema.getQueryType(), request.mutations ? schema.getMutationType() : null];
    for (const root of roots) {
      if (!root || !view.types.has(root.name) || plan.get(root.name) === 'whole') continue;
      // A few ways in per type are enough to say where it is reached from.
      const perType = new Map<string, number>();
      const entries = (view.fields.get(root.name) ?? []).filter((field) => {
        const name = getNamedType(field.type).name;
        const count = perType.get(name) ?? 0;
        perType.set(name, count + 1);
        return plan.has(name) && count < ENTRIES_PER_TYPE;
      });
      if (entries.length === 0) continue;
      const planned = plan.get(root.name) as Set<Field> | undefined;
      plan.set(root.name, new Set([...(planned ?? []), ...entries]));
    }

    const lines: string[] = [];
    const printedMatches = new Set<Match>();
    let used = 0;
    for (const [name, fields] of plan) {
      const line = printType(view, view.types.get(name)!, fields === 'whole' ? undefined : fields);
      // A definition that does not fit is left out whole; a smaller one after it may still fit.
      if (used + line.length + 1 > request.maxChars) continue;
      used += line.length + 1;
      lines.push(line);
      for (const match of matchesOf.get(name) ?? []) printedMatches.add(match);
    }
    const printed = matches.filter((match) => printedMatches.has(match));
    return {
      sdl: lines.join('\n'),
      matches: printed.map((match) => match.coordinate),
      omitted: matches.length - printed.length,
      depth: request.depth,
    };
  };
}
