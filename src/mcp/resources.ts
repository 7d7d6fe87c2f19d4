/**
 * MCP resources: the schema's SDL, a movie by URI (a resource template), the caller's
 * watch list, and the movie card MCP App (movie-card-app.ts), listed to everyone. A movie and the watch list are read through the one executor as the caller, exactly as
 * the getMovie and myWatchlist tools are, so the same rules apply (@auth: an anonymous reader of the
 * watch list gets the classified UNAUTHORIZED refusal; rate limits; deadlines). A refusal is a JSON-RPC
 * error carrying the classification in `data`; an unknown URI or movie is the spec's resource-not-found
 * error (-32602 with `data.uri` on 2026-07-28, -32002 on 2025-11-25: see legacy-error-codes.ts).
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
} from '@modelcontextprotocol/server';
import { printSchema, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Identity } from '../auth/identity.js';
import { RETRYABLE } from '../errors.js';
import { createContext, type ContextDependencies } from '../graphql/context.js';
import type { Executor } from '../graphql/executor.js';
import type { Logger } from '../logger.js';
import { MOVIE_CARD_RESOURCE, MOVIE_CARD_URI, readMovieCard } from './movie-card-app.js';
import { toToolError } from './to-call-tool-result.js';

const SCHEMA_URI = 'moviedb://schema';
const WATCHLIST_URI = 'moviedb://me/watchlist';
export const MOVIE_URI_TEMPLATE = 'moviedb://movies/{id}';
/** A movie URI: the id as storage has it (a positive 32-bit integer without leading zeros). */
const MOVIE_URI = /^moviedb:\/\/movies\/([1-9][0-9]{0,9})$/;
/** Ten digits reach past the largest id storage holds; no movie can have one, so it is not found. */
const LARGEST_ID = 2_147_483_647;

/** How much of an unknown URI a not-found error quotes, so the answer stays far below the body limit. */
const QUOTED_URI_CHARS = 200;

/** Not found, quoting the URI (message and data.uri) at most QUOTED_URI_CHARS long, ellipsised. */
function notFound(uri: string, message?: string): ResourceNotFoundError {
  const quoted = uri.length > QUOTED_URI_CHARS ? `${uri.slice(0, QUOTED_URI_CHARS)}…` : uri;
  return new ResourceNotFoundError(quoted, message ?? `Resource not found: ${quoted}`);
}

const MOVIE_QUERY = `query MovieResource($id: ID!) {
  movie(id: $id) {
    id title releaseYear genre rating runtime tmdbId reviewCount
    directors { id name }
    cast { characterName person { id name } }
  }
}`;
const WATCHLIST_QUERY = `query WatchlistResource {
  watchlist {
    id status
    content { __typename title genre rating ... on Movie { id releaseYear } ... on TvShow { id startYear } }
  }
}`;

const SCHEMA_RESOURCE: Resource = {
  uri: SCHEMA_URI,
  name: 'schema',
  title: 'GraphQL schema',
  description: 'The GraphQL schema (SDL) behind every tool: types, fields and what each means.',
  mimeType: 'application/graphql',
};
const WATCHLIST_RESOURCE: Resource = {
  uri: WATCHLIST_URI,
  name: 'watchlist',
  title: 'My watch list',
  description: "The signed-in user's watch list (as myWatchlist returns it), ordered by entry id.",
  mimeType: 'application/json',
};
const MOVIE_TEMPLATE: ResourceTemplate = {
  uriTemplate: MOVIE_URI_TEMPLATE,
  name: 'movie',
  title: 'Movie',
  description: 'One movie by id with its directors, cast and review count (as getMovie returns it).',
  mimeType: 'application/json',
};

/** Who reads, as the MCP layer knows it. */
interface Reader {
  viewer: Identity | null;
  clientAddress?: string;
  logger: Logger;
  requestId: string;
  signal: AbortSignal;
}

interface ResourceOptions {
  executor: Executor;
  context: ContextDependencies;
  /** Deadline of one read (MCP_TOOL_TIMEOUT_MS). */
  timeoutMs: number;
}

/** The JSON-RPC code of a refusal by classification; the classification itself rides in `data`. */
function codeOf(classification: string): number {
  if (classification === 'BAD_REQUEST') return ProtocolErrorCode.InvalidParams;
  if (classification === 'UNAUTHORIZED' || classification === 'FORBIDDEN') return -32001;
  if (classification === 'INTERNAL_ERROR') return ProtocolErrorCode.InternalError;
  return -32000;
}

export function createResources(options: ResourceOptions) {
  const { executor } = options;
  const sdl = printSchema(executor.schema);
  const parsed = (source: string): DocumentNode => {
    const document = executor.parse(source);
    const errors = executor.validate(executor.schema, document);
    if (errors.length > 0) throw new Error(`resource query does not validate: ${errors[0]!.message}`);
    return document;
  };
  const movie = parsed(MOVIE_QUERY);
  const watchlist = parsed(WATCHLIST_QUERY);

  async function run(
    uri: string,
    document: DocumentNode,
    rootKey: string,
    variables: Record<string, unknown>,
    reader: Reader,
  ): Promise<ReadResourceResult> {
    const context = createContext(options.context, { ...reader, timeoutMs: options.timeoutMs });
    const result: ExecutionResult = await executor.run({ document, variables, context });
    const error = result.errors?.[0];
    if (error) {
      const { message, classification, extensions } = toToolError(error);
      if (classification === 'NOT_FOUND') throw notFound(uri, message);
      throw new ProtocolError(codeOf(classification), message, {
        classification,
        retryable: RETRYABLE[classification],
        ...extensions,
      });
    }
    const data = (result.data as Record<string, unknown> | null | undefined)?.[rootKey] ?? null;
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data) }] };
  }

  return {
    /** The watch list is listed only to a signed-in caller, the one who can read it. */
    list: (viewer: Identity | null): Resource[] =>
      viewer
        ? [SCHEMA_RESOURCE, WATCHLIST_RESOURCE, MOVIE_CARD_RESOURCE]
        : [SCHEMA_RESOURCE, MOVIE_CARD_RESOURCE],
    templates: (): ResourceTemplate[] => [MOVIE_TEMPLATE],
    async read(uri: string, reader: Reader): Promise<ReadResourceResult> {
      if (uri === SCHEMA_URI) return { contents: [{ uri, mimeType: SCHEMA_RESOURCE.mimeType, text: sdl }] };
      if (uri === WATCHLIST_URI) return run(uri, watchlist, 'watchlist', {}, reader);
      if (uri === MOVIE_CARD_URI) return readMovieCard();
      const id = MOVIE_URI.exec(uri)?.[1];
      if (id !== undefined && Number(id) > LARGEST_ID)
        throw notFound(uri, `Entity Movie not found for id: ${id}`);
      if (id !== undefined) return run(uri, movie, 'movie', { id }, reader);
      throw notFound(uri);
    },
  };
}

export type Resources = ReturnType<typeof createResources>;
