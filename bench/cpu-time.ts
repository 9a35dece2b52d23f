import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * CPU time spent by this process's threads, by a PostgreSQL server's processes and by the Temporal server's, read from
 * /proc (Linux; elsewhere there is nothing to read and the figures are not printed). Throughput on a shared machine
 * drifts with its neighbours; CPU per unit of work is the cost behind it, and its split says which part of the engine
 * pays.
 */
export interface CpuTimes {
  /** The event loop: the client, the simulator, the activities, the SDK's plumbing. */
  main: number;
  /** The other Node threads: the workflow thread, V8's helpers (compiling, GC), libuv's pool. */
  nodeThreads: number;
  /** The SDK's Rust core (its tokio threads). */
  rustCore: number;
  postgres: number;
  /** Temporal's own processes: `temporal server start-dev`, or each service of a cluster. */
  temporal: number;
  /** A Temporal cluster's PostgreSQL (start-dev keeps its state in its own process). */
  temporalPostgres: number;
}

const PARTS = ['main', 'nodeThreads', 'rustCore', 'postgres', 'temporal', 'temporalPostgres'] as const;
const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * The CPU times so far (ms), or undefined where /proc cannot tell them. `postgresDataDir` names the PostgreSQL
 * server's cluster, `temporalPids` Temporal's processes, `temporalPostgresDataDir` a Temporal cluster's PostgreSQL.
 */
export function readCpuTimes(servers: {
  postgresDataDir: string;
  temporalPids: number[];
  temporalPostgresDataDir?: string;
}): CpuTimes | undefined {
  if (!existsSync('/proc/self/task')) return undefined;
  const times: CpuTimes = { main: 0, nodeThreads: 0, rustCore: 0, postgres: 0, temporal: 0, temporalPostgres: 0 };
  const self = String(process.pid);
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readStat(`/proc/self/task/${tid}/stat`);
    if (!stat) continue;
    const part = tid === self ? 'main' : stat.name.startsWith('tokio-runtime') ? 'rustCore' : 'nodeThreads';
    times[part] += stat.cpuMs;
  }
  const servings: Array<[string | undefined, 'postgres' | 'temporal' | 'temporalPostgres']> = [
    [postmasterPid(servers.postgresDataDir), 'postgres'],
    ...servers.temporalPids.map((pid): [string, 'temporal'] => [String(pid), 'temporal']),
    [servers.temporalPostgresDataDir ? postmasterPid(servers.temporalPostgresDataDir) : undefined, 'temporalPostgres'],
  ];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    const stat = readStat(`/proc/${pid}/stat`);
    if (!stat) continue;
    // Each server, what it forked and still runs (PostgreSQL's backends and helpers), and what it forked that has
    // ended (a backend whose connection closed: its CPU moves into its parent's count of ended children).
    for (const [server, part] of servings) {
      if (server && pid === server) times[part] += stat.cpuMs + stat.endedChildrenCpuMs;
      if (server && stat.parent === server) times[part] += stat.cpuMs;
    }
  }
  return times;
}

/** CPU ms per unit of work, by part and in all. */
export type CpuPerUnit = CpuTimes & { total: number };

/** CPU ms per unit of work between two readings. */
export function cpuPerUnit(before: CpuTimes, after: CpuTimes, units: number): CpuPerUnit {
  const per = Object.fromEntries(
    PARTS.map((part) => [part, (after[part] - before[part]) / units]),
  ) as unknown as CpuTimes;
  return { ...per, total: PARTS.reduce((sum, part) => sum + per[part], 0) };
}

function readStat(
  file: string,
): { name: string; parent: string; cpuMs: number; endedChildrenCpuMs: number } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined; // the thread or process ended meanwhile
  }
  // `pid (name) state ppid …`: the name may hold spaces and parentheses, so fields are counted from the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const name = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
  return {
    name,
    parent: fields[1],
    cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
    endedChildrenCpuMs: (Number(fields[13]) + Number(fields[14])) * TICK_MS,
  };
}

function postmasterPid(dataDir: string): string | undefined {
  try {
    return readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]?.trim() || undefined;
  } catch {
    return undefined;
  }
}
