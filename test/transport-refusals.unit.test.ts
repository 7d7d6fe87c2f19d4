/**
 * The transport refusals' registry is closed and documented: the table under "Transport refusals" (in
 * docs/errors.md, or the README until the page exists) has one row per refusal, equal to the registry's,
 * in its order; every refusal's classification is one of errors.ts's; templates fill as written.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLASSIFICATIONS } from '../src/errors.js';
import { TRANSPORT_REFUSALS, refusalOf, refusalTableRows } from '../src/transport-refusals.js';

const root = path.resolve(import.meta.dirname, '..');
const page = ['docs/errors.md', 'README.md'].map((file) => path.join(root, file)).find(existsSync)!;

/** The rows of the first table after the heading, cells trimmed (an escaped pipe stays in its cell). */
function documentedRows(markdown: string, heading: string): string[][] {
  const after = markdown.split(new RegExp(`^#{2,4} ${heading}$`, 'm'))[1] ?? '';
  const section = after.split(/^#{2,4} /m)[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

describe('the transport refusals', () => {
  it(`the table in ${path.basename(page)} is the registry, row for row`, () => {
    const expected = refusalTableRows();
    const table = `| ${expected.map((row) => row.join(' | ')).join(' |\n| ')} |`;
    expect(
      documentedRows(readFileSync(page, 'utf8'), 'Transport refusals'),
      `the table should read:\n${table}`,
    ).toEqual(expected);
  });

  it('every refusal carries a classification of the closed list and a status a client can act on', () => {
    for (const [code, spec] of Object.entries(TRANSPORT_REFUSALS)) {
      expect(CLASSIFICATIONS, code).toContain(spec.classification);
      expect(spec.status, code).toBeLessThan(600);
      expect(spec.status === 200 || spec.status >= 400, code).toBe(true);
      expect(code.startsWith(`${spec.endpoint.slice(1)}.`), code).toBe(true);
      // Only a refusal that may succeed later tells the client when to retry.
      if ('retryAfterSeconds' in spec)
        expect(['UNAVAILABLE', 'RATE_LIMITED'], code).toContain(spec.classification);
    }
  });

  it('fills the message and headers from the parameters, and adds Retry-After where one is due', () => {
    expect(refusalOf('graphql.token-invalid', { reason: 'The token has expired' })).toEqual({
      code: 'graphql.token-invalid',
      status: 401,
      classification: 'UNAUTHORIZED',
      message: 'The token has expired',
      headers: {
        'WWW-Authenticate': 'Bearer error="invalid_token", error_description="The token has expired"',
      },
    });
    expect(refusalOf('mcp.draining')).toMatchObject({
      status: 503,
      jsonRpcCode: -32000,
      retryAfterSeconds: 5,
      headers: { Connection: 'close', 'Retry-After': '5' },
    });
    // A parameter not given stays visible rather than becoming "undefined".
    expect(refusalOf('graphql.host-not-allowed').message).toBe('Forbidden: Host {host} is not allowed');
  });
});
