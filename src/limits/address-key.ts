/**
 * The key under which a client address is counted. IPv4 (also written IPv4-mapped, `::ffff:a.b.c.d`)
 * counts per address; IPv6 counts per /64, because a single host is routinely handed a whole /64 and
 * could otherwise take a fresh budget for every request.
 */
import { isIPv4, isIPv6 } from 'node:net';

function expandIPv6(address: string): number[] | undefined {
  let text = address.split('%')[0]!.toLowerCase();
  // A trailing dotted quad (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) stands for the last two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const fill = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  const all = [...left, ...fill, ...right].map((group) => parseInt(group, 16));
  return all.length === 8 && all.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff) ? all : undefined;
}

export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const groups = expandIPv6(address);
  if (!groups) return address;
  // IPv4-mapped: the same client as its IPv4 form.
  if (groups.slice(0, 5).every((n) => n === 0) && groups[5] === 0xffff) {
    const [hi, lo] = [groups[6]!, groups[7]!];
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((n) => n.toString(16))
    .join(':')}::/64`;
}
