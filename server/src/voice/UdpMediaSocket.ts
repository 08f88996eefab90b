import dgram from 'node:dgram';
import { lookup as dnsLookup, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string, family: number) => void;

/** Addresses already known to be IP literals (bounded: cleared when full). */
const literals = new Map<string, number>();
const MAX_LITERALS = 65_536;

/**
 * dgram resolves the destination of every send through dns.lookup, even an IP literal, and
 * dns.lookup answers on the next tick: per forwarded packet an isIP regex, closures and a tick
 * before the datagram leaves (about a fifth of the relay's send path in its CPU profile, see
 * tools/README.md, voice-relay-udp). The relay sends to the addresses IP discovery saw, all
 * literals, so those are answered at once; a name (a client's Select Protocol fallback) still
 * goes through dns.lookup.
 */
function literalLookup(hostname: string, options: number | LookupOneOptions, callback: LookupCallback): void {
  let family = literals.get(hostname);
  if (family === undefined) {
    family = isIP(hostname);
    if (family === 0) return void dnsLookup(hostname, options as LookupOneOptions, callback);
    if (literals.size >= MAX_LITERALS) literals.clear();
    literals.set(hostname, family);
  }
  callback(null, hostname, family);
}

/** The voice server's UDP media socket (not yet bound). */
export function createMediaSocket(host: string): dgram.Socket {
  return dgram.createSocket({ type: host.includes(':') ? 'udp6' : 'udp4', lookup: literalLookup as never });
}
