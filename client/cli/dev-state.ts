import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { projectPath } from '../../config/project-folder.js';

/** Where `mve-orders dev` keeps everything that survives a restart: `.data/` at the project root. */
export const DEFAULT_DATA_DIR = projectPath('.data');
export const DATA_DIR_VARIABLE = 'MVE_DATA_DIR';
export const DEV_STATE_FILE = 'dev.json';

/** The data folder: MVE_DATA_DIR (relative to the working folder) when set, else `.data/` of the project. */
export function devDataDir(env: NodeJS.ProcessEnv): string {
  const configured = env[DATA_DIR_VARIABLE]?.trim();
  return configured ? resolve(configured) : DEFAULT_DATA_DIR;
}

/**
 * What a running `mve-orders dev` tells other commands on this machine (the order commands, the demo), so they
 * connect without environment variables. It holds the local database URL (password included: that server is
 * local and holds no real data) and no other secret: the codec key stays in its own file, the API keys and
 * the callback secret stay in the dev process. The seeded users' API tokens are here on purpose: they are
 * what `--as <user>` uses, and they are revoked when dev starts again.
 */
export interface DevState {
  pid: number;
  startedAt: string;
  dataDir: string;
  /**
   * `kind`: the Temporal dev started, `start-dev` or `cluster` (`mve-orders dev --temporal`), or `external`
   * (TEMPORAL_ADDRESS's); absent in the file of a dev older than it. `uiUrl`: the Web UI of the Temporal dev started.
   */
  temporal: {
    address: string;
    namespace: string;
    taskQueue: string;
    kind?: 'start-dev' | 'cluster' | 'external';
    uiUrl?: string;
  };
  databaseUrl: string;
  api: {
    environment: 'staging' | 'production';
    baseUrl: string;
    simulatorUrl?: string;
    /** The simulator's Read Only key (dev's own simulator only), with which `locations` and `images` list its catalog. */
    catalogKey?: { authUrl: string; clientId: string; clientSecret: string };
  };
  /** The kind-map override the worker uses (the simulator's K5 family), so `submit` checks with the same map. */
  kindMapFile?: string;
  /** The HTTP API: where the CLI's order commands, the demo and scripts send their requests. */
  http: { url: string };
  /**
   * The seeded users and their API tokens (dev only; `--as <user>` picks one). The tokens are made anew at
   * every start, so only this file's are valid, and the file is readable by its owner only.
   */
  users: Array<{ id: string; roles: string[]; token: string }>;
}

export function devStatePath(dataDir: string): string {
  return join(dataDir, DEV_STATE_FILE);
}

/** Written whole (mode 0600) once everything is up. */
export async function writeDevState(state: DevState): Promise<void> {
  const path = devStatePath(state.dataDir);
  await writeFile(path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
}

export async function removeDevState(dataDir: string): Promise<void> {
  await rm(devStatePath(dataDir), { force: true });
}

export type DevStateLookup =
  | { found: true; state: DevState }
  | { found: false; reason: 'absent' | 'stale' | 'unreadable'; path: string; pid?: number };

/** The state of the `dev` running on this data folder; a file whose process has ended is reported as stale. */
export async function readDevState(dataDir: string): Promise<DevStateLookup> {
  const path = devStatePath(dataDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { found: false, reason: 'absent', path };
    return { found: false, reason: 'unreadable', path };
  }
  let state: DevState;
  try {
    state = JSON.parse(text) as DevState;
  } catch {
    return { found: false, reason: 'unreadable', path };
  }
  if (typeof state.pid !== 'number' || !state.temporal?.address || !state.databaseUrl) {
    return { found: false, reason: 'unreadable', path };
  }
  return isRunning(state.pid) ? { found: true, state } : { found: false, reason: 'stale', path, pid: state.pid };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
