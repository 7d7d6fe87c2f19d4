/**
 * Recovery for everything that reaches the database (/graphql and every tool): a deadline per call
 * (aggressive, so the answer never waits for work that ignores the signal; run-within-deadline.ts), and,
 * built on cockatiel, retries with exponential backoff and jitter for idempotent reads only and a circuit
 * breaker over consecutive outages.
 *
 * Two choices go beyond cockatiel's defaults, on purpose:
 * - Callers never act as the half-open trial. While the circuit is not closed every call fails fast, and the
 *   trial is a cheap ping with its own deadline that this policy runs every `probeIntervalMs` (and a
 *   readiness check that finds the database answering closes it at once). So a trial is always settled: no cancelled or
 *   timed-out call can leave it pending, and no caller waits behind it (cockatiel's half-open state makes
 *   concurrent callers await the trial).
 * - Only outages (the work reports them as StoreOutage: refused or dropped connections) count towards
 *   opening the circuit. A call that passes its deadline is a TIMEOUT for that caller, not evidence that the
 *   backend is down.
 */
import {
  CircuitState,
  ConsecutiveBreaker,
  ExponentialBackoff,
  TaskCancelledError,
  TimeoutStrategy,
  circuitBreaker,
  handleType,
  retry,
  timeout,
} from 'cockatiel';
import { AbandonedCall, runWithinDeadline } from './run-within-deadline.js';

/** Thrown by the work when its outcome shows the database unreachable; carries that outcome. */
export class StoreOutage<T = unknown> extends Error {
  constructor(readonly outcome: T) {
    super('The database is unreachable');
    this.name = 'StoreOutage';
  }
}

/** The circuit is open: the call was not attempted. */
export class CircuitOpen extends Error {
  constructor(readonly retryAfterMs: number) {
    super('The database circuit is open');
    this.name = 'CircuitOpen';
  }
}

/** The call passed its deadline; its work was abandoned (writes check the signal before committing). */
export class DeadlineExceeded extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Deadline of ${timeoutMs} ms exceeded`);
    this.name = 'DeadlineExceeded';
  }
}

/** What a caller that cancelled its own call is told (the MCP audit path says the same). */
export const CANCELLED_MESSAGE = 'The call was cancelled by the client';

/** The caller's own signal aborted (client cancellation or disconnect). */
export class CallCancelled extends Error {
  constructor() {
    super(CANCELLED_MESSAGE);
    this.name = 'CallCancelled';
  }
}

type CircuitStateName = 'closed' | 'open' | 'half-open' | 'isolated';

export interface StorePolicyOptions {
  /** Deadline of a call that names none (/graphql operations: GRAPHQL_TIMEOUT_MS). */
  defaultTimeoutMs: number;
  /** Consecutive outages that open the circuit. */
  failureThreshold: number;
  /** While open, how often the database is pinged; the first answer closes the circuit. */
  probeIntervalMs: number;
  /** Extra attempts for an idempotent call that met an outage. */
  readRetries: number;
  /** A cheap round trip to the database (the probe). */
  ping(): Promise<void>;
  onStateChange?(state: CircuitStateName): void;
}

interface RunOptions {
  timeoutMs: number;
  /** The caller's cancellation; the work receives a signal that also aborts at the deadline. */
  signal?: AbortSignal;
  /** Whether the work may be repeated (reads): only then is an outage retried. */
  idempotent: boolean;
  /** Told before each attempt that reaches the database. */
  onAttempt?(): void;
}

export interface StorePolicy {
  readonly defaultTimeoutMs: number;
  /**
   * Runs `work` under the deadline, the circuit and (for idempotent work) retries. Rejects with
   * DeadlineExceeded, CallCancelled, CircuitOpen, or the last StoreOutage when retries did not help.
   */
  run<T>(work: (signal: AbortSignal) => Promise<T>, options: RunOptions): Promise<T>;
  state(): CircuitStateName;
  /** Evidence from elsewhere (a successful readiness ping) that the database answers: close the circuit. */
  reachable(): void;
  dispose(): void;
}

/** How long one probe may take: a ping slower than this does not close the circuit. */
const PROBE_TIMEOUT_MS = 1000;

const STATE_NAMES: Record<CircuitState, CircuitStateName> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Isolated]: 'isolated',
};

const isAbort = (error: unknown) =>
  error instanceof TaskCancelledError || (error instanceof Error && error.name === 'AbortError');

export function createStorePolicy(options: StorePolicyOptions): StorePolicy {
  const breaker = circuitBreaker(handleType(StoreOutage), {
    // The probe runs every probeIntervalMs; half of it keeps a tick from arriving a moment too early.
    halfOpenAfter: Math.max(1, Math.floor(options.probeIntervalMs / 2)),
    breaker: new ConsecutiveBreaker(options.failureThreshold),
  });
  const reads = retry(handleType(StoreOutage), {
    maxAttempts: options.readRetries,
    backoff: new ExponentialBackoff({ initialDelay: 100, maxDelay: 1000 }),
  });
  const probeDeadline = timeout(PROBE_TIMEOUT_MS, TimeoutStrategy.Aggressive);

  let probeTimer: NodeJS.Timeout | undefined;
  let probing = false;
  const probe = async () => {
    if (probing || breaker.state !== CircuitState.Open) return;
    probing = true;
    try {
      await breaker.execute(async () => {
        try {
          await probeDeadline.execute(() => options.ping());
        } catch (error) {
          // Any failure, a slow answer included, keeps the circuit open (a handled failure reopens it).
          throw new StoreOutage(error);
        }
      });
    } catch {
      // Still down, or too soon after the last probe: the next tick tries again.
    } finally {
      probing = false;
    }
  };
  breaker.onBreak(() => {
    if (probeTimer) return;
    probeTimer = setInterval(() => void probe(), options.probeIntervalMs);
    probeTimer.unref();
  });
  breaker.onReset(() => {
    clearInterval(probeTimer);
    probeTimer = undefined;
  });
  breaker.onStateChange((state) => {
    // Isolation is only the momentary step reachable() takes to close the circuit.
    if (state !== CircuitState.Isolated) options.onStateChange?.(STATE_NAMES[state]);
  });

  return {
    defaultTimeoutMs: options.defaultTimeoutMs,
    async run(work, run) {
      const attempt = ({ signal }: { signal: AbortSignal }) => {
        signal.throwIfAborted();
        // Fail fast while not closed: the policy's own probe is the trial (see the header).
        if (breaker.state !== CircuitState.Closed) throw new CircuitOpen(options.probeIntervalMs);
        run.onAttempt?.();
        return breaker.execute(() => work(signal));
      };
      try {
        return await runWithinDeadline(run.timeoutMs, run.signal, (signal) =>
          run.idempotent ? reads.execute(attempt, signal) : attempt({ signal }),
        );
      } catch (error) {
        if (run.signal?.aborted) throw new CallCancelled();
        if (error instanceof AbandonedCall || isAbort(error)) throw new DeadlineExceeded(run.timeoutMs);
        throw error;
      }
    },
    state: () => STATE_NAMES[breaker.state],
    reachable() {
      if (breaker.state !== CircuitState.Open && breaker.state !== CircuitState.HalfOpen) return;
      // The ping that proved it was itself a settled trial: close at once. cockatiel closes a circuit
      // only after a trial or when an isolation ends, so end a momentary isolation.
      breaker.isolate().dispose();
    },
    dispose() {
      clearInterval(probeTimer);
      probeTimer = undefined;
    },
  };
}
