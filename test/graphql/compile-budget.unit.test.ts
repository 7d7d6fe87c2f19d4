/** The per-principal compile budget, on an injected clock. */
import { describe, expect, it } from 'vitest';
import { createCompileBudget } from '../../src/graphql/compile-budget.js';

describe('createCompileBudget', () => {
  it('lets a principal spend its fields per minute, then refuses without spending, until the minute is over', () => {
    let now = 0;
    const budget = createCompileBudget({ fieldsPerMinute: 100, now: () => now });
    expect(budget.spend('address:10.0.0.1', 60)).toBe(true);
    expect(budget.spend('address:10.0.0.1', 50)).toBe(false);
    expect(budget.spend('address:10.0.0.1', 40)).toBe(true);
    expect(budget.spend('address:10.0.0.1', 1)).toBe(false);
    now = 59_999;
    expect(budget.spend('address:10.0.0.1', 1)).toBe(false);
    now = 60_000;
    expect(budget.spend('address:10.0.0.1', 100)).toBe(true);
  });

  it('gives each principal its own budget, and the process ten times one', () => {
    let now = 0;
    const budget = createCompileBudget({ fieldsPerMinute: 100, now: () => now });
    for (let i = 0; i < 10; i++) expect(budget.spend(`address:10.0.0.${i}`, 100)).toBe(true);
    expect(budget.spend('user:42', 1)).toBe(false);
    now = 60_000;
    expect(budget.spend('user:42', 100)).toBe(true);
  });
});
