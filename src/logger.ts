import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * JSON-lines logger. Authorization headers, passwords and tokens are redacted wherever they appear,
 * as a second line of defence behind never logging them on purpose.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'moviedb-mcp' },
    redact: {
      paths: ['req.headers.authorization', '*.password', '*.token', 'password', 'token', '*.authorization'],
      censor: '[redacted]',
    },
  };
  // Asynchronous writes to stdout, so a slow log reader never stalls request handling; pino flushes
  // what is pending when the process exits.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
