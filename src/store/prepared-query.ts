/**
 * A query built and compiled to SQL once, then run with each call's parameters: kysely otherwise builds
 * the query tree and compiles it again on every call (11% of a tools/call's CPU in a CPU profile).
 * For the hot statements only (loaders, the watch list, the account check); the rest stay plain builders.
 *
 * The builder is run once with placeholders in place of the arguments, and each placeholder's position
 * among the compiled parameters is remembered. An array argument (an `in` list) gives SQL whose shape
 * depends on its length, so the compiled form is kept per length, up to MAX_SHAPES lengths; beyond that
 * a call builds its query as before. The builder must put every argument into the query as a value
 * (a parameter), never decide on one: it sees placeholders, not values.
 */
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';

/** Distinct compiled forms kept per statement (one per `in` list length; loaders send up to 100 keys). */
const MAX_SHAPES = 128;

class Placeholder {
  constructor(readonly index: number) {}
}

interface Shape {
  compiled: CompiledQuery;
  /** For each compiled parameter: the flat argument index it takes, or -1 for a constant. */
  sources: readonly number[];
}

/** Anything that runs a compiled query: the database or a transaction on it. */
type Runner = Pick<Kysely<never>, 'executeQuery'>;

/** What the builder returns: a kysely query (select, update, insert or delete with returning). */
type Statement<Row> = Compilable<Row> & { execute(): Promise<Row[]> };

export interface PreparedQuery<Args extends readonly unknown[], Row> {
  /** Runs it with these arguments, on the database it was prepared on or on a transaction of it. */
  execute(args: Args, runner?: Runner): Promise<Row[]>;
  executeTakeFirst(args: Args, runner?: Runner): Promise<Row | undefined>;
}

export function prepareQuery<DB, Args extends readonly unknown[], Row>(
  db: Kysely<DB>,
  build: (db: Kysely<DB>, ...args: Args) => Statement<Row>,
): PreparedQuery<Args, Row> {
  const shapes = new Map<string, Shape>();

  /** The length of each array argument: the SQL differs with them and nothing else. */
  const shapeKey = (args: Args) => args.map((arg) => (Array.isArray(arg) ? arg.length : '')).join(',');

  function prepare(args: Args): Shape {
    let next = 0;
    const placeholders = args.map((arg) =>
      Array.isArray(arg) ? arg.map(() => new Placeholder(next++)) : new Placeholder(next++),
    ) as unknown as Args;
    const compiled = build(db, ...placeholders).compile();
    const sources = compiled.parameters.map((parameter) =>
      parameter instanceof Placeholder ? parameter.index : -1,
    );
    if (new Set(sources.filter((source) => source >= 0)).size !== next)
      throw new Error(`A prepared query must use every argument as a parameter: ${compiled.sql}`);
    return { compiled, sources };
  }

  async function execute(args: Args, runner: Runner = db as Runner): Promise<Row[]> {
    const key = shapeKey(args);
    let shape = shapes.get(key);
    if (!shape) {
      if (shapes.size >= MAX_SHAPES) return build(db, ...args).execute();
      shapes.set(key, (shape = prepare(args)));
    }
    const flat = args.flat();
    const { compiled, sources } = shape;
    const parameters = sources.map((source, i) => (source >= 0 ? flat[source] : compiled.parameters[i]));
    const result = (await runner.executeQuery({ ...compiled, parameters })) as QueryResult<Row>;
    return result.rows;
  }

  return {
    execute,
    async executeTakeFirst(args, runner) {
      return (await execute(args, runner))[0];
    },
  };
}
