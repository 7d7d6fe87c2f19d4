/**
 * The error lines of a tool answer's text block, as a pure function: the classes the front-door tests
 * (error-text.test.ts) cannot reach cheaply (a FORBIDDEN naming scopes or a role, a write's TIMEOUT
 * after its commit, UNAVAILABLE, INTERNAL_ERROR), and the bounds on the text whatever the errors.
 */
import { describe, expect, it } from 'vitest';
import type { ToolError } from '../../src/mcp/to-call-tool-result.js';
import { toolErrorLine, toolErrorText } from '../../src/mcp/tool-error-text.js';

const error = (overrides: Partial<ToolError>): ToolError => ({
  message: 'Something',
  path: null,
  classification: 'BAD_REQUEST',
  retryable: false,
  ...overrides,
});

describe('toolErrorLine', () => {
  it('FORBIDDEN names the scopes to sign in again with, or the role that is needed', () => {
    expect(
      toolErrorLine(
        error({
          classification: 'FORBIDDEN',
          message: 'This token lacks the scope watchlist:write needed by addToWatchlist',
          extensions: { requiredScopes: ['watchlist:write'] },
        }),
      ),
    ).toBe(
      'FORBIDDEN (not retryable): This token lacks the scope watchlist:write needed by addToWatchlist. Ask the user to sign in again granting watchlist:write, then call again with the new token.',
    );
    expect(
      toolErrorLine(
        error({
          classification: 'FORBIDDEN',
          message: 'createMovie needs the ADMIN role',
          extensions: { requiredRole: 'ADMIN' },
        }),
      ),
    ).toBe(
      'FORBIDDEN (not retryable): createMovie needs the ADMIN role. Only an account with the ADMIN role may; do not call again.',
    );
  });

  it('a write past its deadline after its commit is not retryable and says to check first; UNAVAILABLE gives its wait', () => {
    expect(
      toolErrorLine(
        error({
          classification: 'TIMEOUT',
          retryable: false,
          message:
            'The operation did not finish within 1 s and was abandoned, but its change may have been applied: check the current state before calling it again',
          extensions: { writeOutcome: 'unknown' },
        }),
      ),
    ).toMatch(
      /^TIMEOUT \(not retryable\): .*calling it again\. Check the current state before calling again\.$/,
    );
    expect(
      toolErrorLine(
        error({
          classification: 'UNAVAILABLE',
          retryable: true,
          message: 'The movie database is unavailable; calls are paused. Try again in 3 s',
          extensions: { retryAfterSeconds: 3 },
        }),
      ),
    ).toBe(
      'UNAVAILABLE (retryable after 3 s): The movie database is unavailable; calls are paused. Try again in 3 s.',
    );
  });

  it('INTERNAL_ERROR keeps its reference and says to pass it on', () => {
    expect(
      toolErrorLine(
        error({
          classification: 'INTERNAL_ERROR',
          message: 'An unexpected error occurred. Reference: 1234',
          extensions: { reference: '1234' },
        }),
      ),
    ).toBe(
      'INTERNAL_ERROR (not retryable): An unexpected error occurred. Reference: 1234. Tell the user, quoting the reference; the operator can look it up.',
    );
  });

  it('an id found in two places names neither; a field at the top level is named as it is', () => {
    const notFound = error({
      classification: 'NOT_FOUND',
      message: 'Entity TvShow not found for id: 7',
      extensions: { entityType: 'TvShow' },
    });
    expect(toolErrorLine(notFound, { a: '7', b: { c: 7 } })).toBe(
      'NOT_FOUND (not retryable): no TV show with id 7. Check the id; do not call again with the same one.',
    );
    expect(toolErrorLine(error({ extensions: { field: 'itemId' } }), { itemId: 'x' })).toBe(
      'BAD_REQUEST (not retryable): Something (argument "itemId"). Fix that argument, then call again.',
    );
  });

  it('a question before a tool acts says it needs confirmation: the agent is to call again with the token', () => {
    const asked = error({
      message:
        'Nothing done yet: removeFromWatchlist asks the user first. Ask the user; if they agree, call again',
      extensions: { field: 'confirmationToken', confirmationToken: 't' },
    });
    expect(toolErrorLine(asked, { itemId: '1' })).toBe(
      'BAD_REQUEST (needs confirmation): Nothing done yet: removeFromWatchlist asks the user first. Ask the user; if they agree, call again.',
    );
  });
});

describe('toolErrorText', () => {
  it('is empty without errors', () => {
    expect(toolErrorText([])).toBe('');
  });

  it('spells out three errors, counts the rest, and cuts a long message, so the text stays bounded', () => {
    const many = Array.from({ length: 50 }, () => error({ message: 'x'.repeat(10_000) }));
    const text = toolErrorText(many);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('…and 47 more errors (all in structuredContent.errors).');
    expect(text.length).toBeLessThan(1700);
  });
});
