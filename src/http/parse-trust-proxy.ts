/**
 * TRUST_PROXY in Express's `trust proxy` terms: false (the socket address), a hop count, or the trusted
 * addresses, CIDR ranges and named ranges. Parsed at start-up so a bad value stops it, not a request.
 */
import { isIP } from 'node:net';

export type TrustProxy = false | number | string[];

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** The setting in Express's terms; a string naming what is wrong with it otherwise. */
export function parseTrustProxy(value: string): TrustProxy | string {
  const text = value.trim().toLowerCase();
  if (text === 'off' || text === 'false' || text === '0') return false;
  if (/^\d+$/.test(text)) return Number(text) <= 10 ? Number(text) : 'a hop count must be at most 10';
  if (text === 'true' || text === 'on' || text === 'all') {
    // Trusting every hop would let any client choose the address its limits are counted under.
    return 'trusting every proxy lets clients pick their own address: give a hop count or the proxies';
  }
  const entries = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  const bad = entries.filter((entry) => {
    if (NAMED_RANGES.includes(entry)) return false;
    const [address = '', prefix, ...rest] = entry.split('/');
    const version = isIP(address);
    if (version === 0 || rest.length > 0) return true;
    if (prefix === undefined) return false;
    if (/^\d+$/.test(prefix)) return Number(prefix) > (version === 4 ? 32 : 128);
    return !(version === 4 && isIP(prefix) === 4);
  });
  if (entries.length === 0 || bad.length > 0) {
    return `not a hop count, address, CIDR range or one of ${NAMED_RANGES.join(', ')}: ${bad.join(', ') || value}`;
  }
  return entries;
}
