import { createServer } from 'node:net';

/**
 * A port free on 127.0.0.1 now. The cluster needs the ports before the processes start (HAProxy's
 * configuration names them, and a restarted node must come back on its old port), so it asks the
 * kernel for one and releases it; another process could take it in between, which is rare on a
 * test machine and shows up as a node that fails to start, not as a wrong result.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
