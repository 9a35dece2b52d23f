import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KEY_BYTES, Keyring, type KeyringFile } from './keyring.js';

export const DEV_KEY_FILE = 'codec-key.json';

/**
 * A key of `mve-orders dev` (the codec key, the action-signing key): made once, kept in `<dataDir>/<fileName>` (mode 0600), reused on
 * every restart, so history written before a restart still decrypts. The file has the keyring form
 * (`{"keys":[{"id","key"}]}`, first is current), so a second key can be added there to rotate.
 */
export async function loadOrCreateDevKeyring(dataDir: string, fileName = DEV_KEY_FILE): Promise<Keyring> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, fileName);
  const existing = await readKeyFile(path);
  if (existing) return existing;
  await createKeyFile(path);
  return (await readKeyFile(path))!;
}

async function readKeyFile(path: string): Promise<Keyring | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // A key file others can read is tightened rather than refused: it is ours, and dev must start.
  if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new Error(`key file ${path} is not JSON; delete it only if nothing made with its keys is still needed`);
  }
  return Keyring.fromJson(document, `file ${path}`);
}

/**
 * Written to a private temporary file and linked into place, so the key file appears whole or not at all,
 * and two processes starting at once end up sharing whichever key was linked first.
 */
async function createKeyFile(path: string): Promise<void> {
  const content: KeyringFile = {
    keys: [{ id: `dev-${randomBytes(4).toString('hex')}`, key: randomBytes(KEY_BYTES).toString('base64') }],
  };
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary);
  }
}
