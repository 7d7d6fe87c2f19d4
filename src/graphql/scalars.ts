import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

function toIsoString(value: unknown): string {
  const date =
    value instanceof Date
      ? value
      : typeof value === 'string' || typeof value === 'number'
        ? new Date(value)
        : null;
  if (!date || Number.isNaN(date.getTime()))
    throw new GraphQLError('DateTime must be an ISO-8601 date-time string');
  return date.toISOString();
}

/** ISO-8601 instants in UTC; accepts any parseable date-time on input and always answers in UTC. */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An instant in time, as an ISO-8601 string in UTC, for example 2024-01-01T09:00:00.000Z.',
  serialize: toIsoString,
  parseValue: toIsoString,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string', { nodes: ast });
    return toIsoString(ast.value);
  },
});
