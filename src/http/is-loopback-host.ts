/** The loopback names /mcp accepts as Host (and, on a loopback bind, as Origin) without an allowlist. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** Names and addresses that only this machine can reach: binding them needs no Host allowlist. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}
