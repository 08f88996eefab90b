import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The one set of address rules for every connection the platform opens to a URL a developer gave
 * it (webhooks, interactions endpoints, the activity proxy), and for the name check at save time.
 *
 * - 'public': public unicast (ipaddr.js `unicast` range, IPv4-mapped IPv6 unwrapped first);
 * - 'loopback': 127/8, ::1, and IPv6 forms embedding a loopback IPv4 (IPv4-compatible ::/96,
 *   NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32, ::ffff:0:/96);
 * - 'private': everything else (private, link-local, CGNAT, multicast, reserved, and every
 *   IPv4-embedding IPv6 form whatever it embeds: a translator could carry it anywhere).
 */
export type AddressKind = 'loopback' | 'private' | 'public';

/** The IPv4 an IPv6 address carries by one of the embedding conventions, if it is one of them. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = v6.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const range = v6.range();
  if (range === 'rfc6052' || range === 'rfc6145') return v4(p[6]!, p[7]!);
  if (range === '6to4') return v4(p[1]!, p[2]!);
  if (range === 'teredo') return v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff);
  // IPv4-compatible (::a.b.c.d, deprecated): ipaddr.js calls it unicast. `::` and `::1` are not.
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 && !(p[6] === 0 && p[7]! <= 1)) return v4(p[6]!, p[7]!);
  return undefined;
}

/** Classifies an IP address (any textual form ipaddr.js reads); undefined when it is not one. */
export function addressKind(address: string): AddressKind | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 it carries.
    parsed = ipaddr.process(address.replace(/^\[|\]$/g, ''));
  } catch {
    return undefined;
  }
  if (parsed.kind() === 'ipv6') {
    const inner = embeddedIPv4(parsed as ipaddr.IPv6);
    if (inner) return inner.range() === 'loopback' ? 'loopback' : 'private';
  }
  const range = parsed.range();
  if (range === 'loopback') return 'loopback';
  return range === 'unicast' ? 'public' : 'private';
}

export interface AddressAllowance {
  loopback?: boolean;
  private?: boolean;
}

/** Whether a connection may go to `address`: public unicast, or what `allow` adds (development mode). */
export function publicAddressAllowed(address: string, allow: AddressAllowance = {}): boolean {
  const kind = addressKind(address);
  if (kind === undefined) return false;
  return kind === 'public' || (kind === 'loopback' && !!allow.loopback) || (kind === 'private' && !!allow.private);
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolve: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** The error a refused address fails a connection with (undici and ws report it as a connect error). */
export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
  constructor(hostname: string) {
    super(`${hostname} resolves to a private, loopback, link-local or reserved address`);
    this.name = 'RefusedAddressError';
  }
}

/**
 * A `lookup` for net/tls.connect (undici's `connect.lookup`, ws's and http's `lookup`) that
 * resolves the name, refuses the connection unless EVERY address passes, and hands the socket
 * exactly the addresses it checked: the check and the connection use one answer, so a name that
 * rebinds after it was saved (or between two connections) is checked again each time.
 * net.connect never calls `lookup` for an IP literal: check those with publicAddressAllowed.
 */
export function checkedLookup(allow: AddressAllowance, resolve: Resolver = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    const cb = callback as unknown as (err: Error | null, address?: string | { address: string; family: number }[], family?: number) => void;
    const literal = isIP(hostname.replace(/^\[|\]$/g, ''));
    const answer = literal ? Promise.resolve([{ address: hostname.replace(/^\[|\]$/g, ''), family: literal }]) : resolve(hostname);
    answer.then(
      (addresses) => {
        if (addresses.length === 0 || !addresses.every((a) => publicAddressAllowed(a.address, allow))) return cb(new RefusedAddressError(hostname));
        const wanted = (options as { family?: number }).family;
        const usable = wanted === 4 || wanted === 6 ? addresses.filter((a) => a.family === wanted) : addresses;
        if (usable.length === 0) return cb(Object.assign(new Error(`no IPv${wanted} address for ${hostname}`), { code: 'ENOTFOUND' }));
        if ((options as { all?: boolean }).all) cb(null, usable);
        else cb(null, usable[0]!.address, usable[0]!.family);
      },
      (err: Error) => cb(err),
    );
  };
}
