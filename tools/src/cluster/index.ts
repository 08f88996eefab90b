export { type Cluster, type ClusterNodeInfo, type ClusterOptions, startCluster } from './startCluster.ts';
export { type DevelopmentApplication, SERVER_CLI } from './NodeProcess.ts';
export { haproxyConfig, type HaproxyConfigInput } from './haproxyConfig.ts';
