// Reads the conformance suite's output (stdin) and the expected-failures file (argv[2]) and prints one
// line: scenarios passed, expected failures, unexpected failures (named). Exits 1 on an unexpected
// failure, or on an expected failure that now passes (the file must then shrink).
import { readFileSync } from 'node:fs';

const output = readFileSync(0, 'utf8');
const expected = new Set(
  readFileSync(process.argv[2], 'utf8')
    .split('\n')
    .map((line) => /^\s*-\s*([\w-]+)/.exec(line)?.[1])
    .filter(Boolean),
);
const passed = [];
const failed = [];
for (const line of output.split('\n')) {
  const match = /^(✓|✗) ([\w-]+):/.exec(line);
  if (match) (match[1] === '✓' ? passed : failed).push(match[2]);
}
const unexpected = failed.filter((name) => !expected.has(name));
const nowPassing = passed.filter((name) => expected.has(name));
console.log(
  `conformance: ${passed.length} scenarios passed, ${failed.length - unexpected.length} expected failures, ` +
    `${unexpected.length} unexpected failures${unexpected.length ? ` (${unexpected.join(', ')})` : ''}` +
    (nowPassing.length ? `; listed as expected but passing: ${nowPassing.join(', ')}` : ''),
);
if (passed.length === 0 || unexpected.length > 0 || nowPassing.length > 0) process.exit(1);
