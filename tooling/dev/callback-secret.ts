import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const CALLBACK_SECRET_FILE = 'callback-secret';

/**
 * The HMAC secret that signs ticket-system callbacks in dev: made once, kept in `<dataDir>/callback-secret`
 * (mode 0600), so a ticket system set up against dev keeps verifying signatures across restarts.
 */
export async function loadOrCreateCallbackSecret(dataDir: string): Promise<string> {
  const path = join(dataDir, CALLBACK_SECRET_FILE);
  try {
    await writeFile(path, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  await chmod(path, 0o600);
  const secret = (await readFile(path, 'utf8')).trim();
  if (secret === '') throw new Error(`${path} is empty: delete it and dev makes a new callback secret`);
  return secret;
}
