/**
 * A Temporal cluster of one's own, shaped like production (cluster.ts), from the parts tools.ts builds: what
 * `mve-orders cluster`, `mve-orders dev --temporal cluster`, the topology harness, chaos and the benches run; the
 * Web UI server beside it (web-ui.ts).
 */
export {
  DEFAULT_HISTORY_SHARDS,
  DEFAULT_SERVICE_COUNTS,
  startTemporalCluster,
  type ServiceCounts,
  type TemporalCluster,
  type TemporalClusterOptions,
} from './cluster.js';
export {
  clusterConnections,
  clusterPostgresSettings,
  SERVICE_KINDS,
  type ClusterDatabase,
  type ServiceKind,
} from './config.js';
export { databaseOf } from './database.js';
export type { ClusterService } from './service.js';
export { startTemporalClusterOnFreePorts } from './start-again.js';
export { READY_PROBE_TYPE } from './register.js';
export { startWebUiServer, type WebUiServer, type WebUiServerOptions } from './web-ui.js';
export {
  installClusterTools,
  installedClusterTools,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
  type ClusterTools,
} from './tools.js';
