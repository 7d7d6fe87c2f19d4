/**
 * OpenTelemetry's packages are optional dependencies: where they are not installed (the Docker image's
 * default), a configured OTLP endpoint is a configuration error with its remedy, not a crash.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, scratchDir, spawnCli, waitForLine } from '../helpers/cli.js';
import { TEST_JWT_SECRET } from '../helpers/server.js';

const HIDE = path.resolve(import.meta.dirname, '../fixtures/hide-opentelemetry.mjs');

// Each test starts the real command in a process of its own: allow for a busy machine.
describe('tracing without the optional OpenTelemetry packages', { timeout: 90_000 }, () => {
  it('OTEL_EXPORTER_OTLP_ENDPOINT set with the packages missing stops the server with exit 78 and says how to install them', async () => {
    const result = await runCli([], {
      env: {
        PORT: '0',
        DATA_DIR: scratchDir(),
        JWT_SECRET: TEST_JWT_SECRET,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      },
      preload: [HIDE],
    });
    expect(result.stderr).toContain(
      'OTEL_EXPORTER_OTLP_ENDPOINT: tracing needs the optional OpenTelemetry packages, which are not installed',
    );
    expect(result.stderr).toContain('--build-arg TRACING=true');
    expect(result.code).toBe(78);
  });

  it('without an endpoint the missing packages are never asked for: the server listens and drains with exit 0', async () => {
    const child = spawnCli([], {
      env: { PORT: '0', DATA_DIR: scratchDir(), JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'info' },
      preload: [HIDE],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await waitForLine(child, /"msg":"listening"/);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
