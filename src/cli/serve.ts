/**
 * `moviedb-mcp serve` (the default): start the server and drain on SIGTERM/SIGINT (server.close(), then
 * exit 0). A failure to start is one readable message and a sysexits code, never a stack.
 */
import type { Config, LoadConfigOptions } from '../config.js';
import type { RunningServer } from '../server.js';
import { EXIT } from './exit-codes.js';
import { startMemoryReducerSooner } from './memory-reducer.js';
import { releaseOptimizingCompiler } from './optimizing-compiler.js';

/** Resolves with the exit code once the server has drained (or failed to start). */
export async function serve(_args: string[] = [], options: LoadConfigOptions = {}): Promise<number> {
  // Handlers go in before start-up, so a signal that arrives while starting still drains (not a kill).
  let signalled: string | undefined;
  let onSignal: (signal: string) => void = (signal) => (signalled ??= signal);
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  startMemoryReducerSooner();
  // Imported once the handlers are in: loading the server's modules takes most of a second, and a signal
  // in that time used to kill the process (Node's default) instead of draining it.
  const [{ loadConfig }, { startServer }, { describeFailure }, { formatBanner }, { packageInfo }] =
    await Promise.all([
      import('../config.js'),
      import('../server.js'),
      import('./describe-failure.js'),
      import('./banner.js'),
      import('../package-info.js'),
    ]);
  let config: Config | undefined;
  let server: RunningServer;
  try {
    config = loadConfig(process.env, options);
    server = await startServer(config);
    releaseOptimizingCompiler();
  } catch (error) {
    const failure = describeFailure(error, config);
    console.error(failure.message);
    return failure.exitCode;
  }
  if (process.stdout.isTTY && !signalled) {
    console.log(`\n${formatBanner(config, server.port, packageInfo().version)}\n`);
  }
  return new Promise((resolve) => {
    let stopping = false;
    onSignal = (signal) => {
      if (stopping) return;
      stopping = true;
      server.logger.info({ signal }, 'draining');
      server.close().then(
        () => resolve(EXIT.OK),
        (error: unknown) => {
          server.logger.error({ err: error }, 'error while draining');
          resolve(EXIT.FAILURE);
        },
      );
    };
    if (signalled) onSignal(signalled);
  });
}
