// The addresses a connection to `ip` really reaches, for the URL policy to judge. An IPv6
// address can carry an IPv4 one in several standard ways, and each is a way to smuggle a
// private or loopback target past a check that reads only the outer form (issue 11.9):
//   ::ffff:a.b.c.d       IPv4-mapped (RFC 4291)         ::a.b.c.d   IPv4-compatible (deprecated)
//   ::ffff:0:a.b.c.d     IPv4-translated (RFC 6145)     64:ff9b::a.b.c.d  NAT64 (RFC 6052)
//   2002:AABB:CCDD::/48  6to4 (RFC 3056)                2001:0::/32 Teredo: server and client (RFC 4380)
// Each is unwrapped to the IPv4 address(es) it names; all of them must pass. IPv4 text forms
// (decimal, octal, hex, short) never get here as such: WHATWG URL parsing canonicalises them
// in http(s) hosts, and DNS answers are dotted quads; ipaddr.js rejects anything else.
import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The addresses to judge for `text`, or null when it is not an IP address at all. */
export function addressesToJudge(text: string): Address[] | null {
  let parsed: Address;
  try {
    parsed = ipaddr.parse(text);
  } catch {
    return null;
  }
  if (parsed.kind() === 'ipv4') return [parsed];
  const v6 = parsed as ipaddr.IPv6;
  const p = v6.parts;
  const range = v6.range();
  // ::/96 other than :: and ::1: IPv4-compatible.
  const compatible = p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1);
  const nat64 = range === 'rfc6052' && p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0);
  if (range === 'ipv4Mapped' || range === 'rfc6145' || compatible || nat64) return [ipv4Of(p[6]!, p[7]!)];
  if (range === '6to4') return [ipv4Of(p[1]!, p[2]!)];
  // Teredo: the relay (server) in clear, the client's IPv4 inverted in the last 32 bits.
  if (range === 'teredo') return [ipv4Of(p[2]!, p[3]!), ipv4Of(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
  return [v6];
}
