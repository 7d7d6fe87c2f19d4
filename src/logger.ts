import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { prettyFactory } from 'pino-pretty';

/**
 * pino-pretty (30 modules) is required only for the pretty format: a server logging JSON lines
 * (production, a pipe) never loads it. It is CommonJS, so it loads synchronously.
 */
const loadPrettyFactory = (): typeof prettyFactory =>
  (createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty')).prettyFactory;

export type { Logger };

export type LogFormat = 'auto' | 'pretty' | 'json';

/** `auto` is readable lines for a person at a terminal and JSON lines for a collector reading a pipe. */
export function chooseLogFormat(setting: LogFormat, stdoutIsTTY: boolean): 'pretty' | 'json' {
  if (setting === 'auto') return stdoutIsTTY ? 'pretty' : 'json';
  return setting;
}

/**
 * JSON-lines logger, or readable lines (pino-pretty's formatter in-process, so no worker thread) when the format is
 * pretty. Authorization headers, passwords and tokens are redacted wherever they appear, as a second
 * line of defence behind never logging them on purpose.
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  format: 'pretty' | 'json' = 'json',
): Logger {
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
  const out = destination ?? pino.destination({ dest: 1, sync: false });
  if (format === 'pretty') {
    const prettify = loadPrettyFactory()({
      colorize: destination === undefined && process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service',
      singleLine: true,
    });
    return pino(options, { write: (line: string) => void out.write(prettify(line)) });
  }
  return pino(options, out);
}
