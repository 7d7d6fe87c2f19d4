/** `npm run bench`'s settings, read from the environment once (documented in bench/run.ts). */
const stores = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');
if (stores.some((store) => store !== 'sqlite' && store !== 'postgres'))
  throw new Error('BENCH_STORES: sqlite, postgres or both');
const catalogue = process.env.BENCH_CATALOGUE ?? 'seed';
if (catalogue !== 'seed' && catalogue !== 'large') throw new Error('BENCH_CATALOGUE: seed or large');

/** A setting that must be a number above 0. */
function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name}: a number above 0`);
  return value;
}
const profileCases = process.env.BENCH_PROFILE_CASES?.split(',')
  .map((word) => word.trim())
  .filter((word) => word !== '');
if (profileCases?.length === 0) throw new Error('BENCH_PROFILE_CASES: words of case names, comma-separated');

export const settings = {
  seconds: Number(process.env.BENCH_SECONDS ?? 5),
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  latencySeconds: Number(process.env.BENCH_LATENCY_SECONDS ?? 5),
  databaseUrl: process.env.BENCH_DATABASE_URL,
  stores,
  catalogue,
  idleSessions: 500,
  settleSeconds: Number(process.env.BENCH_SETTLE_SECONDS ?? 10),
  settledSeconds: Number(process.env.BENCH_SETTLED_SECONDS ?? 60),
  /** npm run bench:profile (bench/profile.ts). */
  profile: {
    seconds: positive('BENCH_PROFILE_SECONDS', 10),
    top: positive('BENCH_PROFILE_TOP', 15),
    cases: profileCases,
  },
};
