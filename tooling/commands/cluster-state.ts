import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';

/** What `mve-orders cluster` runs, as it prints it with --json and keeps in `<folder>/cluster.json` while it runs. */
export interface ClusterSummary {
  /** The mve-orders cluster command's own process. */
  pid: number;
  /** The first frontend: what clients dial (TEMPORAL_ADDRESS). */
  address: string;
  frontends: string[];
  version: string;
  namespace: string;
  historyShards: number;
  /** The password hidden. */
  postgres: { url: string; embedded: boolean; dataDir?: string; databases: string[] };
  processes: Array<{
    name: string;
    kind: string;
    pid: number;
    grpc: string;
    membershipPort: number;
    metricsUrl: string;
    pprofPort: number;
    logFile: string;
  }>;
  webUi: { url: string; pid: number; logFile: string };
  folder: string;
  /** Ports that moved, in words. */
  notes: string[];
}

export const CLUSTER_STATE_FILE = 'cluster.json';

/** The folder made ready for this start; refused while another `mve-orders cluster` runs on it. */
export async function claimClusterFolder(folder: string): Promise<void> {
  const running = await runningOn(folder);
  if (running)
    throw new Error(
      `another mve-orders cluster runs on ${folder} (pid ${running.pid}, Temporal at ${running.address}); ` +
        'stop it first, or set MVE_DATA_DIR to another folder',
    );
  await mkdir(folder, { recursive: true, mode: 0o700 });
  // As root, PostgreSQL runs as the postgres account, which must pass through the data folder and this one to its
  // cluster in postgres/: execute without read, as dev's data folder (tooling/dev/data-folder.ts).
  if (userInfo().uid === 0)
    for (const dir of [dirname(folder), folder]) await chmod(dir, ((await stat(dir)).mode & 0o777) | 0o001);
}

export async function writeClusterState(folder: string, summary: ClusterSummary): Promise<void> {
  await writeFile(join(folder, CLUSTER_STATE_FILE), `${JSON.stringify(summary, null, 2)}\n`, { mode: 0o600 });
}

export async function removeClusterState(folder: string): Promise<void> {
  await rm(join(folder, CLUSTER_STATE_FILE), { force: true });
}

/** The summary of the cluster command running on `folder`, if one runs (a file whose process has ended is not). */
async function runningOn(folder: string): Promise<ClusterSummary | undefined> {
  let summary: ClusterSummary;
  try {
    summary = JSON.parse(await readFile(join(folder, CLUSTER_STATE_FILE), 'utf8')) as ClusterSummary;
  } catch {
    return undefined;
  }
  try {
    process.kill(summary.pid, 0);
    return summary;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? summary : undefined;
  }
}
