/**
 * The configuration of one process of a Temporal cluster: one service (frontend, history, matching or worker) on its
 * own ports, the cluster's PostgreSQL databases, its metrics and pprof. Rendered as JSON, which the server's YAML loader
 * reads as it is; each process gets a file of its own (`--config-file`), since two processes of one kind on one host
 * need their own ports.
 */

export const SERVICE_KINDS = ['frontend', 'history', 'matching', 'worker'] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

/** Where the cluster keeps its state: a PostgreSQL server, reached with a role that owns both databases. */
export interface ClusterDatabase {
  host: string;
  port: number;
  user: string;
  password: string;
  /** Workflow state; default `temporal`. */
  database: string;
  /** What the visibility store lists and counts; default `temporal_visibility`. */
  visibilityDatabase: string;
}

/** One process's ports on loopback: gRPC, ringpop membership, pprof and Prometheus metrics. */
export interface ServicePorts {
  grpc: number;
  membership: number;
  pprof: number;
  metrics: number;
}

export interface ServiceConfigInput {
  kind: ServiceKind;
  host: string;
  ports: ServicePorts;
  /**
   * A process of each other kind, listed beside its own: every process must know the four services to follow their
   * members (a member announces its own gRPC port, so which process of a kind is listed does not matter).
   */
  others: Record<ServiceKind, ServicePorts>;
  database: ClusterDatabase;
  historyShards: number;
  /** The first frontend's address, the cluster's address in its metadata. */
  frontendAddress: string;
  dynamicConfigFile: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

/** The PostgreSQL connections one process of the cluster may hold, to each of its two stores. */
export const STORE_CONNECTIONS = { default: 20, visibility: 10 } as const;

/**
 * What the cluster may hold at once on its PostgreSQL server: `processes` times both stores' connections. An idle
 * cluster of six already holds about 75, so a server of PostgreSQL's default max_connections (100) shared with the
 * product runs out under load; `mve-orders cluster` and dev's cluster give their embedded PostgreSQL room for these.
 */
export function clusterConnections(processes: number): number {
  return processes * (STORE_CONNECTIONS.default + STORE_CONNECTIONS.visibility);
}

/**
 * The server settings of a PostgreSQL the cluster runs on, `processes` of it: PostgreSQL's default 100 connections,
 * which the product's pools fit in, and room for the cluster's beside them.
 */
export function clusterPostgresSettings(processes: number): Record<string, string> {
  return { max_connections: String(100 + clusterConnections(processes)) };
}

/** Temporal's PostgreSQL connections for one store; a cluster process holds up to `maxConns` to each. */
function datastore(database: ClusterDatabase, name: string, maxConns: number): object {
  return {
    sql: {
      pluginName: 'postgres12',
      databaseName: name,
      connectAddr: `${database.host}:${database.port}`,
      connectProtocol: 'tcp',
      user: database.user,
      password: database.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  };
}

export function serviceConfig(input: ServiceConfigInput): object {
  const { kind, host, ports, database } = input;
  return {
    log: { stdout: true, level: input.logLevel },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      // Fixed for the life of the cluster: a shard is the unit the history hosts share out between them.
      numHistoryShards: input.historyShards,
      datastores: {
        default: datastore(database, database.database, STORE_CONNECTIONS.default),
        visibility: datastore(database, database.visibilityDatabase, STORE_CONNECTIONS.visibility),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: host },
      pprof: { port: ports.pprof },
      metrics: {
        prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `${host}:${ports.metrics}` },
      },
    },
    services: Object.fromEntries(
      SERVICE_KINDS.map((each) => {
        const listed = each === kind ? ports : input.others[each];
        return [each, { rpc: { grpcPort: listed.grpc, membershipPort: listed.membership, bindOnIP: host } }];
      }),
    ),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: input.frontendAddress },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: input.dynamicConfigFile, pollInterval: '10s' },
  };
}

/**
 * The cluster's dynamic config, which each process re-reads every 10 s: empty, so every setting is Temporal's default,
 * as on a first deployment. A setting put in the file applies to the running cluster without a restart.
 */
export const DYNAMIC_CONFIG = `# Temporal's dynamic config: every setting at its default. Settings put here apply within 10 s.
{}
`;
