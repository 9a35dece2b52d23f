import { resolveKeyring, type Keyring } from '../codec/index.js';
import { loadTemporalConfig, type TemporalConfig } from '../config/temporal.js';
import { kindMapFromEnv, type KindMap } from '../domain/index.js';
import { devDataDir, readDevState, type DevState, type DevStateLookup } from './dev/index.js';

/** Nothing to connect to: the message says what to start or set. The CLI exits 2 on it. */
export class NotConfiguredError extends Error {
  override readonly name = 'NotConfiguredError';
}

export interface ClientSettings {
  temporal: TemporalConfig & { address: string };
  /** Undefined when neither DATABASE_URL nor a running dev names one (only `orders`-side commands need none). */
  databaseUrl: string | undefined;
  keyring: Keyring;
  kindMap: KindMap;
  /** The running `mve-orders dev` the settings came from, if they did. */
  dev: DevState | undefined;
}

/**
 * How a CLI command or script reaches the engine. Environment variables first: with TEMPORAL_ADDRESS set,
 * everything comes from the environment (a real deployment). Without it, the state file of the `dev` running
 * on this data folder fills in what the environment leaves unset, so `npm start` then `mve-orders status X`
 * works with no variables at all.
 */
export async function loadClientSettings(env: NodeJS.ProcessEnv = process.env): Promise<ClientSettings> {
  let dev: DevState | undefined;
  let effective = env;
  if (!env['TEMPORAL_ADDRESS']?.trim()) {
    const dataDir = devDataDir(env);
    const lookup = await readDevState(dataDir);
    if (!lookup.found) throw new NotConfiguredError(notRunningMessage(lookup));
    dev = lookup.state;
    effective = { ...devStateAsEnv(dev), ...definedOnly(env) };
  }
  const temporal = loadTemporalConfig(effective);
  return {
    temporal: { ...temporal, address: temporal.address! },
    databaseUrl: effective['DATABASE_URL']?.trim() || undefined,
    keyring: await resolveKeyring({ env: effective, ...(dev ? { devDataDir: dev.dataDir } : {}) }),
    kindMap: kindMapFromEnv(effective),
    dev,
  };
}

function devStateAsEnv(state: DevState): NodeJS.ProcessEnv {
  return {
    TEMPORAL_ADDRESS: state.temporal.address,
    TEMPORAL_NAMESPACE: state.temporal.namespace,
    TEMPORAL_TASK_QUEUE: state.temporal.taskQueue,
    DATABASE_URL: state.databaseUrl,
    ...(state.kindMapFile ? { MVE_KIND_MAP: state.kindMapFile } : {}),
  };
}

function definedOnly(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
}

function notRunningMessage(lookup: Exclude<DevStateLookup, { found: true }>): string {
  const start = 'start the engine with `npm start` (mve-orders dev) in another terminal, or set TEMPORAL_ADDRESS (and DATABASE_URL, MVE_CODEC_KEYS) to use a real deployment';
  switch (lookup.reason) {
    case 'absent':
      return `no Temporal to talk to: TEMPORAL_ADDRESS is not set and no mve-orders dev is running (no ${lookup.path}); ${start}`;
    case 'stale':
      return `no Temporal to talk to: the mve-orders dev that wrote ${lookup.path} (pid ${lookup.pid}) is no longer running; ${start}`;
    case 'unreadable':
      return `no Temporal to talk to: ${lookup.path} cannot be read as a dev state file; ${start}`;
  }
}
