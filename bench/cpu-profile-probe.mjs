// Loaded with --import into a server that `npm run bench:profile` measures: V8's sampling profiler,
// started and stopped by lines on the server's standard input, so a profile holds the loaded window only
// (start-up's second of CPU would otherwise dilute it). `start` begins sampling and prints
// {"cpuProfile":"started"}; `stop FILE` writes the profile (Chrome DevTools' .cpuprofile format) to FILE
// and prints {"cpuProfile":"written"}; a failure prints {"cpuProfile":"failed","error":...} instead.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createInterface } from 'node:readline';

/** µs between samples: V8's default (1000) leaves a 10 s profile of a 200 µs call too coarse. */
const SAMPLING_INTERVAL_US = 250;

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });

const report = (state, extra = {}) =>
  process.stdout.write(`${JSON.stringify({ cpuProfile: state, ...extra })}\n`);

createInterface({ input: process.stdin }).on('line', async (line) => {
  // The file is the rest of the line: a case's name holds spaces.
  const [command, ...rest] = line.trim().split(' ');
  const file = rest.join(' ');
  try {
    if (command === 'start') {
      await session.post('Profiler.start');
      report('started');
    } else if (command === 'stop' && file) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      report('written');
    }
  } catch (error) {
    report('failed', { error: String(error) });
  }
});
// Standard input must not keep a server alive that SIGTERM has drained (unref exists on a pipe or TTY).
process.stdin.unref?.();
