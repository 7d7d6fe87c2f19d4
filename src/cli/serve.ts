/**
 * `moviedb-mcp serve` (the default): start the server and drain on SIGTERM/SIGINT (server.close(), then
 * exit 0). A failure to start is one readable message and a sysexits code, never a stack.
 */
import { loadConfig, type Config } from '../config.js';
import { startServer } from '../server.js';
import { formatBanner } from './banner.js';
import { describeFailure } from './describe-failure.js';
import { EXIT } from './exit-codes.js';
import { packageInfo } from './package-info.js';

/** Resolves with the exit code once the server has drained (or failed to start). */
export async function serve(): Promise<number> {
  let config: Config | undefined;
  let server;
  try {
    config = loadConfig();
    server = await startServer(config);
  } catch (error) {
    const failure = describeFailure(error, config);
    console.error(failure.message);
    return failure.exitCode;
  }
  if (process.stdout.isTTY) console.log(`\n${formatBanner(config, server.port, packageInfo().version)}\n`);
  const running = server;
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      running.logger.info({ signal }, 'draining');
      running.close().then(
        () => resolve(EXIT.OK),
        (error: unknown) => {
          running.logger.error({ err: error }, 'error while draining');
          resolve(EXIT.FAILURE);
        },
      );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });
}
