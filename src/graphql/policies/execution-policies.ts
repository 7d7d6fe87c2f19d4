/**
 * The executor's policies in the order they run, outermost first: the one place that order is written.
 * 1. idempotency-key-check: a key that cannot be kept is a BAD_REQUEST, before it counts against a quota;
 * 2. rate-limit: every operation that gets this far counts against its principal;
 * 3. authorization: a keyed write is checked whole against @auth, before a stored answer could stand in;
 * 4. result-cache: a shareable read may be answered from the cache, and its answer kept;
 * 5. idempotency: a keyed write's repeat is answered from its stored answer, else it runs reserving the key;
 * 6. write-invalidation: an executed mutation clears the cache (a replayed one executed nothing);
 * 7. masking: errors are classified, the unknown masked and logged (stored answers were masked already);
 * 8. store-policy: deadline, caller's signal, read retries and the circuit around each attempt.
 */
import { authorizationPolicy } from './authorization-policy.js';
import type { ExecutionPolicy } from './execution-policy.js';
import { idempotencyPolicy } from './idempotency-policy.js';
import { keyCheckPolicy } from './key-check-policy.js';
import { maskingPolicy } from './masking-policy.js';
import { rateLimitPolicy } from './rate-limit-policy.js';
import { resultCachePolicy } from './result-cache-policy.js';
import { storePolicy } from './store-policy.js';
import { writeInvalidationPolicy } from './write-invalidation-policy.js';

export const EXECUTION_POLICIES: readonly ExecutionPolicy[] = Object.freeze([
  keyCheckPolicy,
  rateLimitPolicy,
  authorizationPolicy,
  resultCachePolicy,
  idempotencyPolicy,
  writeInvalidationPolicy,
  maskingPolicy,
  storePolicy,
]);
