/**
 * MCP prompts (docs/mcp.md, Resources and prompts): "plan-movie-night" walks an agent from a mood to recommendations to the watch
 * list, with the tools it names. Its `mood` argument completes from the schema's Mood enum (values and
 * their descriptions come from the SDL, so a new mood needs no change here). The text depends on who
 * asks: a signed-in caller is led on to add titles (with idempotency keys, so a retried add never adds
 * twice); an anonymous one is told that adding needs sign-in. An unknown prompt or a missing or unknown
 * mood is JSON-RPC -32602, as the spec says for prompts/get.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type CompleteResult,
  type GetPromptResult,
  type Prompt,
} from '@modelcontextprotocol/server';
import { isEnumType, type GraphQLSchema } from 'graphql';
import { MOVIE_URI_TEMPLATE } from './resources.js';

const PLAN_MOVIE_NIGHT = 'plan-movie-night';
/** The spec caps a completion at 100 values. */
const MAX_COMPLETIONS = 100;

interface CompletionRef {
  type: string;
  name?: string;
  uri?: string;
}

export function createPrompts(schema: GraphQLSchema) {
  const moodType = schema.getType('Mood');
  if (!isEnumType(moodType)) throw new Error('the schema has no Mood enum for the plan-movie-night prompt');
  const moods = moodType.getValues().map((value) => ({ name: value.name, description: value.description }));
  const moodNames = moods.map((mood) => mood.name);

  const prompt: Prompt = {
    name: PLAN_MOVIE_NIGHT,
    title: 'Plan a movie night',
    description:
      'From a mood to a short list of movies to a watch list: recommendations for the mood, a choice, then the chosen titles added to the watch list.',
    arguments: [
      { name: 'mood', description: `The kind of evening: one of ${moodNames.join(', ')}.`, required: true },
      {
        name: 'excludeWatched',
        description: '"true" to leave out movies already watched (signed in only); default "false".',
        required: false,
      },
    ],
  };

  const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);

  function get(name: string, args: Record<string, string> | undefined, signedIn: boolean): GetPromptResult {
    if (name !== PLAN_MOVIE_NIGHT)
      throw invalid(`Unknown prompt: ${name.slice(0, 100)}. Call prompts/list for the prompts.`);
    const unknown = Object.keys(args ?? {}).filter((key) => key !== 'mood' && key !== 'excludeWatched');
    if (unknown.length > 0)
      throw invalid(`Unknown argument for ${PLAN_MOVIE_NIGHT}: ${unknown[0]!.slice(0, 100)}`);
    const mood = moods.find((m) => m.name === args?.mood?.trim().toUpperCase());
    if (!mood) throw invalid(`${PLAN_MOVIE_NIGHT} needs the argument mood: one of ${moodNames.join(', ')}`);
    const exclude = args?.excludeWatched?.trim().toLowerCase();
    if (exclude !== undefined && exclude !== 'true' && exclude !== 'false')
      throw invalid(`excludeWatched must be "true" or "false"`);
    const excludeWatched = signedIn && exclude === 'true';
    const steps = [
      `Plan a movie night for a ${mood.name} mood (${mood.description ?? mood.name}).`,
      `1. Call recommendMoviesForMood with ${JSON.stringify({ mood: mood.name, ...(excludeWatched ? { excludeWatched } : {}) })}. An empty list means nothing suits the mood: say so and offer another mood.`,
      '2. Show me the recommendations (title, year, rating, directors) and ask which ones I want.',
      ...(signedIn
        ? [
            '3. For each title I choose, call addToWatchlist with {"subject": {"movieId": "<its id>"}} and an idempotencyKey of your own (a new UUID per title), so a retried call never adds it twice. "already in your watch list" means it is there already.',
            '4. Finish by reading my watch list (myWatchlist, or the resource moviedb://me/watchlist) and tell me what is on it for tonight.',
          ]
        : [
            '3. Adding titles to a watch list needs sign-in: tell me that, and list the chosen titles with their ids so I can add them once signed in.',
          ]),
    ];
    return {
      description: `Movie night, ${mood.name.toLowerCase()} mood`,
      messages: [{ role: 'user', content: { type: 'text', text: steps.join('\n') } }],
    };
  }

  function complete(ref: CompletionRef, argument: { name: string; value: string }): CompleteResult {
    const values = (candidates: string[]) => {
      const prefix = argument.value.trim().toUpperCase();
      const matching = candidates.filter((c) => c.toUpperCase().startsWith(prefix));
      return {
        completion: {
          values: matching.slice(0, MAX_COMPLETIONS),
          total: matching.length,
          hasMore: matching.length > MAX_COMPLETIONS,
        },
      };
    };
    if (ref.type === 'ref/prompt') {
      if (ref.name !== PLAN_MOVIE_NIGHT) throw invalid(`Unknown prompt: ${String(ref.name).slice(0, 100)}`);
      if (argument.name === 'mood') return values(moodNames);
      if (argument.name === 'excludeWatched') return values(['true', 'false']);
      return values([]);
    }
    // A movie id is not completed: searchMovies finds ids.
    if (ref.type === 'ref/resource' && ref.uri === MOVIE_URI_TEMPLATE) return values([]);
    if (ref.type === 'ref/resource')
      throw invalid(`Unknown resource template: ${String(ref.uri).slice(0, 100)}`);
    throw invalid(`Unknown completion reference type: ${String(ref.type).slice(0, 100)}`);
  }

  return { list: (): Prompt[] => [prompt], get, complete };
}

export type Prompts = ReturnType<typeof createPrompts>;
