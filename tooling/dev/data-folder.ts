import { chmod, mkdir, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { readDevState } from '../../client/cli/dev-state.js';

/** The data folder made ready for this start; refused while another dev runs on it. */
export async function claimDataDir(dataDir: string): Promise<void> {
  const running = await readDevState(dataDir);
  if (running.found) {
    throw new Error(
      `dev is already running on ${dataDir} (pid ${running.state.pid}); stop it first, or set MVE_DATA_DIR to another folder`,
    );
  }
  await prepareDataDir(dataDir);
}

/**
 * Private to this account, except that as root the folder must also let the postgres account (PostgreSQL
 * refuses to run as root) pass through to its cluster in `postgres/`: execute without read, so the key
 * files beside it (mode 0600) stay unreadable and unlisted.
 */
async function prepareDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (userInfo().uid !== 0) return;
  const { mode } = await stat(dataDir);
  if ((mode & 0o001) === 0) await chmod(dataDir, (mode & 0o777) | 0o001);
}
