/** IP discovery packets (protocols.md 3.5): 74 bytes, big-endian. */
export const DISCOVERY_BYTES = 74;

export function discoveryRequest(ssrc: number): Uint8Array {
  const packet = new Uint8Array(DISCOVERY_BYTES);
  const view = new DataView(packet.buffer);
  view.setUint16(0, 1);
  view.setUint16(2, 70);
  view.setUint32(4, ssrc >>> 0);
  return packet;
}

/** The address and port of a discovery response, or undefined when it is not one (or not IPv4). */
export function parseDiscoveryResponse(packet: Uint8Array): { address: string; port: number } | undefined {
  if (packet.length !== DISCOVERY_BYTES) return undefined;
  const view = new DataView(packet.buffer, packet.byteOffset, packet.length);
  if (view.getUint16(0) !== 2 || view.getUint16(2) !== 70) return undefined;
  let end = 8;
  while (end < 72 && packet[end] !== 0) end++;
  const address = new TextDecoder().decode(packet.subarray(8, end));
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(address)) return undefined;
  return { address, port: view.getUint16(72) };
}
