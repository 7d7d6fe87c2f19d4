/** A host as it is written in a URL: an IPv6 address goes in brackets (RFC 3986 section 3.2.2). */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
