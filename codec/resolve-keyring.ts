import { loadOrCreateDevKeyring } from './dev-key.js';
import { CODEC_KEYS_VARIABLE, CodecKeyError, keyringFromEnvironment, type Keyring } from './keyring.js';

export interface KeyringSource {
  env: Readonly<Record<string, string | undefined>>;
  /** Set only by `mve-orders dev` and clients talking to it: where the generated dev key is kept. */
  devDataDir?: string;
}

/**
 * MVE_CODEC_KEYS when set (real deployments, and overriding dev); otherwise the dev key in `devDataDir`.
 * With neither, refuse to run rather than write unencrypted history.
 */
export async function resolveKeyring({ env, devDataDir }: KeyringSource): Promise<Keyring> {
  const configured = keyringFromEnvironment(env);
  if (configured) return configured;
  if (devDataDir !== undefined) return loadOrCreateDevKeyring(devDataDir);
  throw new CodecKeyError(
    `${CODEC_KEYS_VARIABLE} is not set: workers and clients need the payload codec keys, written id:base64key[,id:base64key...] with the current key first (see docs/security.md)`,
  );
}
