/**
 * What each feature that shares state through Redis does when Redis is away: the one list of those
 * rules. docs/deployment.md ("What Redis holds, and what happens when it is away") shows this table and
 * a test keeps the two equal; a feature that starts sharing state adds its row here. No feature waits
 * for Redis: every command fails fast (redis-connection.ts), and the rule says what answers instead.
 */

/** How a feature degrades, in one word: the rule its code follows. */
type DegradationRule =
  /** Goes on, on this process's own state (counts per replica instead of shared ones). */
  | 'fail-open'
  /** Refuses with a classified, retryable error: answering from local state would be wrong. */
  | 'refuse'
  /** Goes on; what would have crossed to the other replicas is lost, and a bound limits the harm. */
  | 'best-effort'
  /** Not affected: reports the state. */
  | 'report';

export interface Degradation {
  /** The feature, as the documentation names it. */
  feature: string;
  rule: DegradationRule;
  /** What it does while Redis answers. */
  withRedis: string;
  /** What it does while Redis is unreachable, and when it recovers. */
  redisUnreachable: string;
}

export const REDIS_DEGRADATION: readonly Degradation[] = [
  {
    feature: 'rate limits',
    rule: 'fail-open',
    withRedis: 'one count for all replicas',
    redisUnreachable:
      "fail open to a count in the process's memory, per replica; shared counts again once Redis answers",
  },
  {
    feature: '2025 sessions',
    rule: 'refuse',
    withRedis: 'any replica serves any session',
    redisUnreachable:
      '2025 session requests answer 503 `UNAVAILABLE` with `Retry-After: 5`; 2026-07-28 and stateless go on',
  },
  {
    feature: '2025 resumable streams',
    rule: 'best-effort',
    withRedis: 'a cut stream resumes on any replica',
    redisUnreachable: 'events still go out on the live stream; a stream cut meanwhile cannot be resumed',
  },
  {
    feature: 'cancellation and confirmation answers',
    rule: 'best-effort',
    withRedis: 'reach the call on whichever replica it runs',
    redisUnreachable:
      'reach it only on the replica that received them; elsewhere the call runs to its time bound',
  },
  {
    feature: 'result-cache invalidation',
    rule: 'best-effort',
    withRedis: 'every replica clears its cache on a write',
    redisUnreachable:
      'writes elsewhere are missed: the cache is cleared when the bus listens again, and entries expire after `RESULT_CACHE_TTL_SECONDS`',
  },
  {
    feature: '`/readyz`',
    rule: 'report',
    withRedis: '`"redis": "ok"`',
    redisUnreachable: '`"redis": "down"` in its body, staying 200: every request is still served',
  },
];
