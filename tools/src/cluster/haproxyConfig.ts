/**
 * The HAProxy configuration of a local cluster: one HTTP frontend on loopback, round robin over
 * the nodes with no affinity of any kind (no cookie, no stick table, no source hash), so a client
 * that reconnects lands on whichever node is next; that is what the cluster must survive.
 */
export interface HaproxyConfigInput {
  /** Port the load balancer listens on (127.0.0.1). */
  port: number;
  /** Listen ports of the nodes, in order; server names are n0, n1, ... */
  nodePorts: readonly number[];
  /** Health-check interval: how soon a killed node stops getting new connections. Default 250 ms. */
  checkIntervalMs?: number;
}

export function haproxyConfig({ port, nodePorts, checkIntervalMs = 250 }: HaproxyConfigInput): string {
  return [
    'global',
    // Two descriptors per proxied connection; 4,000 stays under a default 20,000-file limit.
    '  maxconn 4000',
    // Nothing is logged: the nodes log what matters; HAProxy's own warnings still reach stderr.
    '',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 60s',
    '  timeout server 60s',
    // After the WebSocket upgrade the connection is a tunnel: Gateway sockets stay open for as
    // long as the client plays (heartbeats every ~41 s keep them busy anyway).
    '  timeout tunnel 1h',
    '  timeout client-fin 1s',
    '  timeout server-fin 1s',
    // A request whose connection was refused (node just killed, not yet marked down) is sent to
    // another node: it never reached the dead one, so retrying cannot double it.
    '  retries 3',
    '  option redispatch 1',
    '  option forwardfor',
    '',
    'frontend social_layer',
    `  bind 127.0.0.1:${port}`,
    '  default_backend nodes',
    '',
    'backend nodes',
    '  balance roundrobin',
    // A TCP connect check: a killed process refuses at once. (An HTTP check would spend the
    // per-address rate-limit budget every client behind this proxy shares.)
    `  default-server inter ${checkIntervalMs} fall 1 rise 1`,
    ...nodePorts.map((p, i) => `  server n${i} 127.0.0.1:${p} check`),
    '',
  ].join('\n');
}
