/**
 * Fails calls fast while the backend is down (SPEC section 6). Closed: calls pass and consecutive
 * failures are counted. Open (after `failureThreshold` in a row): calls are refused until `openMs`
 * has passed. Half-open: one trial call passes; its success closes the circuit, its failure reopens it.
 */
export interface CircuitBreakerOptions {
  failureThreshold: number;
  openMs: number;
  now?: () => number;
  onStateChange?: (state: CircuitState) => void;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreaker {
  /** Whether a call may go ahead now; when not, how long until the next trial. */
  admit(): { allowed: true } | { allowed: false; retryAfterMs: number };
  recordSuccess(): void;
  recordFailure(): void;
  state(): CircuitState;
}

export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const now = options.now ?? Date.now;
  let state: CircuitState = 'closed';
  let failures = 0;
  let openedAt = 0;
  let trialInFlight = false;

  const moveTo = (next: CircuitState) => {
    if (next === state) return;
    state = next;
    options.onStateChange?.(next);
  };

  return {
    admit() {
      if (state === 'open') {
        const waited = now() - openedAt;
        if (waited < options.openMs) return { allowed: false, retryAfterMs: options.openMs - waited };
        moveTo('half-open');
      }
      if (state === 'half-open') {
        if (trialInFlight) return { allowed: false, retryAfterMs: options.openMs };
        trialInFlight = true;
      }
      return { allowed: true };
    },
    recordSuccess() {
      failures = 0;
      trialInFlight = false;
      moveTo('closed');
    },
    recordFailure() {
      trialInFlight = false;
      failures += 1;
      if (state === 'half-open' || failures >= options.failureThreshold) {
        openedAt = now();
        moveTo('open');
      }
    },
    state: () => state,
  };
}
