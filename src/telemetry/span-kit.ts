/** What each span hook needs: our tracer, our context manager and the W3C propagator (none of them global). */
import type { ContextManager, TextMapPropagator, Tracer } from '@opentelemetry/api';

export interface SpanKit {
  tracer: Tracer;
  /**
   * AsyncLocalStorage-based, owned by this server rather than registered globally, so several servers
   * in one process (the tests) each keep their own; every hook reads and sets the active span through it.
   */
  contextManager: ContextManager;
  propagator: TextMapPropagator;
}
