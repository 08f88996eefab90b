import { parseArgs } from 'node:util';
import { startCluster } from './startCluster.ts';

/**
 * `npm run cluster [-- --nodes 3 --port 8080 --pg-schema NAME --redis-prefix P ...]`: the
 * scale-out set on a developer's machine, three nodes of the real server on PostgreSQL + Redis
 * behind HAProxy. The schema and prefix persist between runs (the data stays); Ctrl-C stops all.
 */
const { values } = parseArgs({
  options: {
    nodes: { type: 'string' },
    port: { type: 'string' },
    'pg-url': { type: 'string' },
    'pg-schema': { type: 'string' },
    'redis-url': { type: 'string' },
    'redis-prefix': { type: 'string' },
    'log-level': { type: 'string' },
  },
  strict: true,
});

const cluster = await startCluster({
  nodes: values.nodes ? Number(values.nodes) : 3,
  port: values.port ? Number(values.port) : 8080,
  ...(values['pg-url'] ? { pgUrl: values['pg-url'] } : {}),
  ...(values['pg-schema'] ? { pgSchema: values['pg-schema'] } : {}),
  ...(values['redis-url'] ? { redisUrl: values['redis-url'] } : {}),
  ...(values['redis-prefix'] ? { redisPrefix: values['redis-prefix'] } : {}),
  ...(values['log-level'] ? { logLevel: values['log-level'] as 'info' } : {}),
  echo: (line) => console.log(line),
});

console.log(`\nSocial Layer cluster: ${cluster.nodes.length} nodes behind HAProxy`);
console.log(`  load balancer  ${cluster.url}   (API ${cluster.url}/api/v10, Gateway ${cluster.url.replace('http', 'ws')}/gateway)`);
for (const n of cluster.nodes) console.log(`  node ${n.index}         ${n.url}   pid ${n.pid}`);
if (cluster.application) {
  console.log('\nCreated the development application (shown only on a fresh schema; keep it):');
  console.log(JSON.stringify({ application_id: cluster.application.applicationId, client_secret: cluster.application.clientSecret, bot_token: cluster.application.botToken }, null, 2));
}
console.log('\nCtrl-C stops every node and the load balancer.');

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping the cluster...');
  cluster.stop().then(() => process.exit(0), (err) => {
    console.error(err);
    process.exit(1);
  });
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
