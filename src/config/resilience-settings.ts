import { z } from 'zod';
import { int, section, setting } from './setting.js';

export const resilienceSettings = section(
  'Deadlines, retries and the circuit (shared by /graphql and the tools)',
  z.object({
    graphqlTimeoutMs: setting(
      'GRAPHQL_TIMEOUT_MS',
      int(100, 120000, 10000),
      'Deadline of one /graphql operation, in milliseconds; past it the answer is a TIMEOUT error and the work is abandoned.',
    ),
    statementTimeoutMs: setting(
      'DATABASE_STATEMENT_TIMEOUT_MS',
      int(100, 600000, 15000),
      'PostgreSQL `statement_timeout` (and idle-in-transaction timeout), in milliseconds: no frozen query holds a connection longer. Keep it above the longest deadline.',
    ),
    readRetries: setting(
      'STORE_READ_RETRIES',
      int(0, 5, 2),
      'Extra attempts for a read whose database was unreachable (writes are never retried).',
    ),
    circuitFailures: setting(
      'STORE_CIRCUIT_FAILURES',
      int(1, 100, 5),
      'Consecutive store connection failures that open the circuit (timeouts do not count).',
    ),
    circuitProbeMs: setting(
      'STORE_CIRCUIT_PROBE_MS',
      int(50, 60000, 500),
      'While the circuit is open, the database is pinged this often (ms); the first answer closes it.',
    ),
  }),
);
