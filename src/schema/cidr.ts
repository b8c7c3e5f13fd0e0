// CIDR handling shared by the token store (bound CIDRs), the cloud method (login checks) and the
// reconciler (canonical comparison: a host address equals its /32 or /128).

import ipaddr from 'ipaddr.js';

export class CidrError extends Error {}

/** Parses an address or CIDR; a bare address becomes a host route. Throws CidrError naming the input. */
export function parseCidr(input: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const s = input.trim();
  try {
    if (s.includes('/')) {
      const [addr, bits] = ipaddr.parseCIDR(s);
      return [unmap(addr), addr.kind() === 'ipv6' && unmap(addr).kind() === 'ipv4' ? bits - 96 : bits];
    }
    const addr = unmap(ipaddr.parse(s));
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    throw new CidrError(`invalid CIDR or IP address ${JSON.stringify(input)} (expected a form like 10.0.0.0/8 or 192.0.2.7)`);
  }
}

function unmap(a: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a;
}

/** Canonical text: network address with prefix length ("10.0.0.0/8"; "192.0.2.7/32" for a host). */
export function canonicalCidr(input: string): string {
  const [addr, bits] = parseCidr(input);
  const net = addr.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${addr.toString()}/${bits}`) : ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/${bits}`);
  return `${net.toString()}/${bits}`;
}

/** True when address (a client's remote address, possibly IPv4-mapped IPv6) is inside any CIDR. */
export function addressInCidrs(address: string, cidrs: readonly string[]): boolean {
  if (cidrs.length === 0) return true;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = unmap(ipaddr.parse(address));
  } catch {
    return false;
  }
  return cidrs.some((c) => {
    try {
      const [net, bits] = parseCidr(c);
      return net.kind() === addr.kind() && addr.match(net, bits);
    } catch {
      return false;
    }
  });
}
