import { randomBytes } from 'node:crypto';
import { Keyring } from '../../codec/index.js';

export const newKeyText = () => randomBytes(32).toString('base64');

/** A keyring from `id` names, each with a fresh random key; the first is current. */
export function keyringOf(...ids: string[]): { keyring: Keyring; text: string } {
  const text = ids.map((id) => `${id}:${newKeyText()}`).join(',');
  return { keyring: Keyring.fromText(text), text };
}
