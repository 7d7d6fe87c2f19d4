// Loaded with --import into a server that `npm run bench:profile` measures: V8's sampling profiler,
// started and stopped by lines on the server's standard input, so a profile holds the loaded window only
// (start-up's second of CPU would otherwise dilute it). `start` begins sampling; `stop FILE` writes the
// profile (Chrome DevTools' .cpuprofile format) to FILE and prints {"cpuProfile": FILE} on stdout.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createInterface } from 'node:readline';

/** µs between samples: V8's default (1000) leaves a 10 s profile of a 200 µs call too coarse. */
const SAMPLING_INTERVAL_US = 250;

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });

const lines = createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  const [command, file] = line.trim().split(' ');
  if (command === 'start') await session.post('Profiler.start');
  if (command === 'stop' && file) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    process.stdout.write(`${JSON.stringify({ cpuProfile: file })}\n`);
  }
});
// Standard input must not keep a server alive that SIGTERM has drained.
process.stdin.unref();
