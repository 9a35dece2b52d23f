import type { Repository } from '../../infra/db/index.js';
import { issueApiToken } from '../http/index.js';

/** The people and systems of `mve-orders dev`, each with an API token made at every start (dev only). */
export const DEV_USERS = [
  { id: 'alice', roles: ['requester'] },
  { id: 'fiona', roles: ['finance-approver'] },
  { id: 'dave', roles: ['finance-director'] },
  { id: 'olga', roles: ['ops'] },
  { id: 'ticket-bot', roles: ['ticket-system'] },
] as const;

export interface DevUser {
  id: string;
  roles: string[];
  token: string;
}

const DEV_TOKEN_DESCRIPTION = 'mve-orders dev: seeded user';

/** New tokens for the seeded users; the tokens of earlier starts are revoked, so only the current dev.json works. */
export async function issueDevUserTokens(repository: Repository): Promise<DevUser[]> {
  const users: DevUser[] = [];
  for (const user of DEV_USERS) {
    for (const old of await repository.listTokens({ owner: user.id })) {
      if (old.description === DEV_TOKEN_DESCRIPTION) await repository.revokeToken({ id: old.id, by: 'mve-orders dev' });
    }
    const issued = await issueApiToken(repository, {
      owner: user.id,
      roles: [...user.roles],
      description: DEV_TOKEN_DESCRIPTION,
    });
    users.push({ id: user.id, roles: [...user.roles], token: issued.token });
  }
  return users;
}
