/**
 * What Temporal did for a bench's work, from its own Prometheus metrics (each process's /metrics: start-dev has one,
 * a cluster one per service) and, on a cluster, from its PostgreSQL (pg_stat_statements): persistence requests and
 * their latency, calls between Temporal's services, and the SQL statements and transactions behind them. Read before
 * and after some work and divided by its units, they say where a Temporal kind's time goes.
 */
import { connectDatabase } from '../infra/db/index.js';

export interface ServerCounters {
  /** Requests to the workflow store (`persistence_requests`), and the seconds they took in all. */
  persistence: { requests: number; seconds: number };
  /** Requests to the visibility store. */
  visibility: { requests: number; seconds: number };
  /**
   * gRPC calls one Temporal service made to another (`client_requests`: history → matching, frontend → history…),
   * long polls aside (a poll waits for work: its time is not a hop's cost).
   */
  calls: { requests: number; seconds: number };
  /**
   * A history shard's writes, made one at a time: the waits for the shard's turn (`semaphore_latency` of ShardInfo),
   * and the seconds waited in all.
   */
  shardQueue: { requests: number; seconds: number };
  /** On a cluster, its PostgreSQL: statements other than transaction control, transactions, and execution ms. */
  sql?: { statements: number; transactions: number; executionMs: number };
}

export interface TemporalMetricsSource {
  metricsUrls: string[];
  /** A cluster's PostgreSQL (its maintenance database's URL) and the databases Temporal keeps there. */
  postgres?: { adminUrl: string; databases: readonly string[] };
}

export async function readServerCounters(source: TemporalMetricsSource): Promise<ServerCounters> {
  const texts = await Promise.all(source.metricsUrls.map((url) => fetch(url).then((answer) => answer.text())));
  const sum = (name: string, skip?: RegExp) => texts.reduce((total, text) => total + metricSum(text, name, skip), 0);
  const pair = (prefix: string, skip?: RegExp) => ({
    requests: sum(`${prefix}_requests`, skip),
    seconds: sum(`${prefix}_latency_sum`, skip),
  });
  return {
    persistence: pair('persistence'),
    visibility: pair('visibility_persistence'),
    calls: pair('client', LONG_POLL),
    shardQueue: {
      requests: sum('semaphore_latency_count', NOT_SHARD_INFO),
      seconds: sum('semaphore_latency_sum', NOT_SHARD_INFO),
    },
    ...(source.postgres ? { sql: await sqlCounters(source.postgres.adminUrl, source.postgres.databases) } : {}),
  };
}

/** Per unit of work between two readings: counts per unit, and the mean time of one request, ms. */
export function serverCostPerUnit(
  before: ServerCounters,
  after: ServerCounters,
  units: number,
): Record<string, number | string> {
  const per = (pick: (counters: ServerCounters) => number) => round2((pick(after) - pick(before)) / units);
  const meanMs = (pick: (counters: ServerCounters) => { requests: number; seconds: number }) => {
    const requests = pick(after).requests - pick(before).requests;
    return requests ? round2(((pick(after).seconds - pick(before).seconds) * 1000) / requests) : 'n/a';
  };
  return {
    'persistence requests': per((c) => c.persistence.requests),
    'persistence ms (mean)': meanMs((c) => c.persistence),
    'visibility requests': per((c) => c.visibility.requests),
    'visibility ms (mean)': meanMs((c) => c.visibility),
    'calls between services (polls aside)': per((c) => c.calls.requests),
    'call ms (mean)': meanMs((c) => c.calls),
    'shard write queue ms (mean)': meanMs((c) => c.shardQueue),
    ...(before.sql && after.sql
      ? {
          'SQL statements': per((c) => c.sql!.statements),
          'SQL transactions': per((c) => c.sql!.transactions),
          'SQL execution ms': per((c) => c.sql!.executionMs),
        }
      : {}),
  };
}

const LONG_POLL = /operation="[^"]*Poll[^"]*"/;
const NOT_SHARD_INFO = /operation="(?!ShardInfo")/;

/**
 * The sum of every series of a metric in Prometheus's text format (its labels, whatever they are, summed over), but
 * those whose labels match `skip`.
 */
function metricSum(text: string, name: string, skip?: RegExp): number {
  return metricValues(text, name, skip).reduce((total, value) => total + value, 0);
}

function metricValues(text: string, name: string, skip?: RegExp): number[] {
  const values: number[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' ')) continue;
    if (skip?.test(line.slice(name.length, line.lastIndexOf(' ')))) continue;
    values.push(Number(line.slice(line.lastIndexOf(' ') + 1)) || 0);
  }
  return values;
}

/**
 * The Go heap in use of the Temporal process serving `metricsUrl`, MiB (`memory_heapinuse`; start-dev reports it once
 * per service it runs, the same process's heap each time).
 */
export async function goHeapInUseMiB(metricsUrl: string): Promise<number> {
  const text = await fetch(metricsUrl).then((answer) => answer.text());
  return Math.round(Math.max(0, ...metricValues(text, 'memory_heapinuse')) / 2 ** 20);
}

const TRANSACTION_CONTROL = /^\s*(begin|start transaction|commit|rollback|end)\b/i;

async function sqlCounters(
  adminUrl: string,
  databases: readonly string[],
): Promise<{ statements: number; transactions: number; executionMs: number }> {
  const sql = connectDatabase(adminUrl, { maxConnections: 1 });
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
    const rows = await sql<Array<{ query: string; calls: string; ms: number }>>`
      SELECT s.query, s.calls::text AS calls, s.total_exec_time AS ms
      FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = ANY(${databases as string[]})`;
    const counters = { statements: 0, transactions: 0, executionMs: 0 };
    for (const row of rows) {
      const calls = Number(row.calls);
      counters.executionMs += row.ms;
      if (!TRANSACTION_CONTROL.test(row.query)) counters.statements += calls;
      else if (/^\s*(begin|start transaction)\b/i.test(row.query)) counters.transactions += calls;
    }
    return counters;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const round2 = (value: number) => Math.round(value * 100) / 100;
