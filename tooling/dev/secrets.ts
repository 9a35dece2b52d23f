import { resolveKeyring, type Keyring } from '../../codec/index.js';
import { resolveActionKeys } from '../../config/action-keys.js';
import { loadOrCreateCallbackSecret } from './callback-secret.js';

/** The keys dev's engine runs with: each from the environment when set there, else kept in the data folder. */
export interface DevSecrets {
  /** MVE_CODEC_KEYS: the payload codec's keys. */
  keyring: Keyring;
  /** MVE_ACTION_KEY: the keys human actions are signed with. */
  actionKeys: Keyring;
  /** MVE_CALLBACK_SECRET: signs ticket-system callbacks. */
  callbackSecret: string;
}

export async function loadDevSecrets(env: NodeJS.ProcessEnv, dataDir: string): Promise<DevSecrets> {
  const keyring = await resolveKeyring({ env, devDataDir: dataDir });
  const actionKeys = await resolveActionKeys({ env, devDataDir: dataDir });
  const callbackSecret = env['MVE_CALLBACK_SECRET'] || (await loadOrCreateCallbackSecret(dataDir));
  return { keyring, actionKeys, callbackSecret };
}
