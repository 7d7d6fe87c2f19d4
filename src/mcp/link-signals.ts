/**
 * One AbortSignal that aborts when any of the given ones does. Unlike AbortSignal.any (weak references
 * and a finalizer per call), the listeners here are removed by `release`, so a long-lived source
 * signal keeps nothing of the calls that linked to it.
 */
export function linkSignals(...signals: AbortSignal[]): {
  signal: AbortSignal;
  abort(reason: unknown): void;
  release(): void;
} {
  const controller = new AbortController();
  const forward = (event: Event) => controller.abort((event.target as AbortSignal).reason);
  for (const signal of signals) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', forward, { once: true });
  }
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    release: () => signals.forEach((signal) => signal.removeEventListener('abort', forward)),
  };
}
