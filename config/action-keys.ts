import { CodecKeyError, Keyring, loadOrCreateDevKeyring } from '../codec/index.js';

/** The keys the HTTP API signs human actions with and the workers' validators accept (see workflows/order/signed-action.ts). */
export const ACTION_KEY_VARIABLE = 'MVE_ACTION_KEY';
export const DEV_ACTION_KEY_FILE = 'action-key.json';

/**
 * MVE_ACTION_KEY (`id:base64key[,id:base64key...]`, 32-byte keys, the first signs, all verify) when set;
 * otherwise, for `mve-orders dev` and what talks to it, a key kept in the data folder. With neither, refuse:
 * a worker without the key would refuse every vote, and an API without it could not sign one.
 */
export async function resolveActionKeys(options: {
  env: Readonly<Record<string, string | undefined>>;
  devDataDir?: string;
}): Promise<Keyring> {
  const text = options.env[ACTION_KEY_VARIABLE]?.trim();
  if (text) return Keyring.fromText(text, ACTION_KEY_VARIABLE, 'action keys');
  if (options.devDataDir !== undefined) return loadOrCreateDevKeyring(options.devDataDir, DEV_ACTION_KEY_FILE);
  throw new CodecKeyError(
    `${ACTION_KEY_VARIABLE} is not set: the HTTP API and the workers share the key that signs approvals, rejections, cancels and buy resolutions, written id:base64key[,id:base64key...] (32 random bytes each, current first; see docs/security.md)`,
  );
}
