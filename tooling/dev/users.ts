import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Repository } from '../../infra/db/index.js';
import { authenticateApiToken, issueApiToken } from '../../client/http/index.js';
import { DEV_USERS } from '../../client/cli/dev-users.js';

export interface DevUser {
  id: string;
  roles: string[];
  token: string;
}

/** Where the seeded users' tokens are kept between starts (mode 0600): they are credentials. */
export const DEV_TOKENS_FILE = 'dev-tokens.json';
const DEV_TOKEN_DESCRIPTION = 'mve-orders dev: seeded user';

/**
 * The seeded users' tokens: the ones of the last start while they still hold (same owner and roles, not revoked or
 * expired, in this database), so a token saved in a script or a ticket system keeps working across restarts; a new
 * one otherwise. Any other token dev seeded for a user is revoked, so only the kept ones work.
 */
export async function issueDevUserTokens(repository: Repository, dataDir: string): Promise<DevUser[]> {
  const path = join(dataDir, DEV_TOKENS_FILE);
  const saved = await readSavedTokens(path);
  const users: DevUser[] = [];
  for (const user of DEV_USERS) {
    const roles = [...user.roles];
    const { token, id } =
      (await stillHolds(repository, saved[user.id], user.id, roles)) ??
      (await issueDevToken(repository, user.id, roles));
    for (const old of await repository.listTokens({ owner: user.id })) {
      if (old.description === DEV_TOKEN_DESCRIPTION && old.id !== id)
        await repository.revokeToken({ id: old.id, by: 'mve-orders dev' });
    }
    users.push({ id: user.id, roles, token });
  }
  await writeFile(path, `${JSON.stringify(Object.fromEntries(users.map((u) => [u.id, u.token])), null, 2)}\n`, {
    mode: 0o600,
  });
  await chmod(path, 0o600);
  return users;
}

async function issueDevToken(repository: Repository, owner: string, roles: string[]) {
  const issued = await issueApiToken(repository, { owner, roles, description: DEV_TOKEN_DESCRIPTION });
  return { token: issued.token, id: issued.record.id };
}

async function readSavedTokens(path: string): Promise<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    // None yet, or unreadable: new tokens are issued and the file written again.
    return {};
  }
}

/** `token` (and its id) when it authenticates as `owner` with exactly `roles`; undefined otherwise. */
async function stillHolds(
  repository: Repository,
  token: unknown,
  owner: string,
  roles: string[],
): Promise<{ token: string; id: string } | undefined> {
  if (typeof token !== 'string') return undefined;
  try {
    const principal = await authenticateApiToken(repository, token);
    const same = principal.id === owner && [...principal.roles].sort().join() === [...roles].sort().join();
    return same && principal.via.kind === 'token' ? { token, id: principal.via.tokenId } : undefined;
  } catch {
    return undefined;
  }
}
