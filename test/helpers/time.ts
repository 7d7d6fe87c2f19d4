/**
 * The suite's time helpers, in one place: tests wait for something they can observe, drive a clock they
 * were handed, or, where the wait is the behaviour under test, say so by calling a helper that names it.
 * A bare `setTimeout` in a test is a guess about how fast a loaded machine is; these are not.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { vi } from 'vitest';

export interface WaitOptions {
  /** Give up after this long (default 10 s: far past any healthy wait, short of the test's timeout). */
  timeoutMs?: number;
  /** How often to look (default 20 ms). */
  intervalMs?: number;
}

/**
 * Resolves with the first truthy value `probe` returns, looking every `intervalMs`; past `timeoutMs`
 * it throws `timed out after N ms waiting for <what>` plus what `detail` says about the last state.
 * For assertions prefer `expect.poll`; this is for helpers that wait on a condition and return a value.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 20 }: WaitOptions = {},
  detail: () => string = () => '',
): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (performance.now() > deadline) {
      const last = detail();
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `; ${last}` : ''}`);
    }
    await sleep(intervalMs);
  }
}

/**
 * Waits out a span of time that is itself the scenario: a dependency kept stalled for as long as the
 * test means it to be, a non-event proven by outlasting the server's own debounce or deadline. `why`
 * is required so the reason sits beside every such wait; it names the bound the wait follows.
 */
export function outlast(ms: number, why: string): Promise<void> {
  if (!why) throw new Error('outlast needs the reason the wait is inherent');
  return sleep(Math.max(0, ms));
}

/**
 * A load generator's pause between calls: not a wait for anything, it sets how hard the callers
 * press (a patient attacker at its rate limit, twenty callers on a 2-core machine).
 */
export const pace = (ms: number): Promise<void> => sleep(ms);

/**
 * The wall clock (`Date`) of this process, moved by the test: for in-process code that reads `Date.now()`
 * inside a library that takes no clock (rate-limiter-flexible's fixed windows). Timers stay real and the
 * clock keeps running; `advance` jumps it forward. Call `restore` in afterEach.
 */
export function useMovableWallClock(): { advance(ms: number): void; restore(): void } {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: Date.now() });
  return {
    advance: (ms) => vi.setSystemTime(Date.now() + ms),
    restore: () => vi.useRealTimers(),
  };
}
