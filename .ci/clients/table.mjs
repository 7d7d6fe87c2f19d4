// Reads the drivers' RESULT lines on stdin and prints the client table (client, version, connected,
// schemas converted, calls ok/tried, errors surfaced); exits 1 on any miss: a client that did not connect,
// a signed-in tool not listed, a schema its framework could not convert, a failed call, an error whose
// text does not start with its classification, or fewer result lines than drivers run.
// Usage: node table.mjs DRIVERS_RUN < results
import { readFileSync } from 'node:fs';

const expected = Number(process.argv[2]);
const rows = readFileSync(0, 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('RESULT '))
  .map((line) => JSON.parse(line.slice('RESULT '.length)));

const yes = (ok) => (ok ? 'yes' : 'NO');
const missed = (row) =>
  !row.connected ||
  row.missing.length > 0 ||
  row.converted < row.listed ||
  row.ok < row.tried ||
  row.errorsSurfaced < row.errorsTried;

const table = [
  ['client', 'version', 'how', 'connected', 'schemas converted', 'calls ok/tried', 'errors surfaced'],
  ...rows.map((row) => [
    row.client,
    row.version,
    row.how,
    yes(row.connected),
    `${row.converted}/${row.listed}${row.missing.length ? ` (not listed: ${row.missing.join(', ')})` : ''}`,
    `${row.ok}/${row.tried}`,
    `${row.errorsSurfaced}/${row.errorsTried}`,
  ]),
];
const widths = table[0].map((_, i) => Math.max(...table.map((cells) => cells[i].length)));
const line = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
console.log(line(table[0]));
console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
for (const cells of table.slice(1)) console.log(line(cells));

for (const row of rows) {
  if (row.note) console.log(`${row.client}: ${row.note}`);
  for (const problem of row.problems) console.log(`${row.client}: ${problem.replace(/\s*\n\s*/g, ' ⏎ ')}`);
}
const failed = rows.filter(missed).length + Math.max(0, expected - rows.length);
if (rows.length < expected) console.log(`${expected - rows.length} of ${expected} drivers printed no result`);
if (failed > 0) process.exit(1);
console.log(`every client connected, converted every schema, made every call and surfaced every error`);
