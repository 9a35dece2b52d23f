/**
 * Who loads the API: several ticket systems and several finance approvers, each with an API token of its own. The
 * rate limit counts each credential apart (by its owner), so many credentials spread the load as a deployment's
 * callers do; the approvers are in the directory, as a vote needs.
 */
import { issueApiToken } from '../../client/http/index.js';
import { connectDatabase, createRepository } from '../../infra/db/index.js';

export interface LoadPeople {
  /** Token names (`ticket-system-1`…), in order. */
  ticketSystems: string[];
  /** Approver ids (`approver-1`…), in order: each a finance approver of the directory. */
  approvers: string[];
  /** Bearer tokens by name. */
  tokens: Record<string, string>;
}

export async function addLoadPeople(
  databaseUrl: string,
  counts: { ticketSystems: number; approvers: number },
): Promise<LoadPeople> {
  const sql = connectDatabase(databaseUrl, { maxConnections: 2 });
  try {
    const repository = createRepository(sql);
    const names = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
    const people: LoadPeople = {
      ticketSystems: names('ticket-system', counts.ticketSystems),
      approvers: names('approver', counts.approvers),
      tokens: {},
    };
    const token = async (owner: string, role: string) =>
      (people.tokens[owner] = (
        await issueApiToken(repository, { owner, roles: [role], description: 'bench:load' })
      ).token);
    for (const owner of people.ticketSystems) await token(owner, 'ticket-system');
    for (const id of people.approvers) {
      await repository.addApprover({ id, displayName: `Approver ${id} (bench)`, roles: ['finance-approver'] });
      await token(id, 'finance-approver');
    }
    return people;
  } finally {
    await sql.end();
  }
}
