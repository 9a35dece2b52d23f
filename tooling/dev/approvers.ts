import type { Repository } from '../../infra/db/index.js';

/**
 * The people of the demo's directory: one approver per role of the default staging policy's tiers, and alice, the
 * requester a ticket system names (the examples' `requestedBy`): a ticket system may only order for a person the
 * directory knows.
 */
export const DEMO_PEOPLE = [
  { id: 'fiona', displayName: 'Fiona (demo)', roles: ['finance-approver'] },
  { id: 'dave', displayName: 'Dave (demo)', roles: ['finance-director'] },
  { id: 'alice', displayName: 'Alice (demo requester)', roles: [] },
] as const;

/**
 * Adds the demo people the directory lacks (by id), so dev never changes a person someone has set up or
 * deactivated, and a data folder made before a demo person existed gets them too.
 */
export async function seedDemoPeople(repository: Repository): Promise<Array<(typeof DEMO_PEOPLE)[number]>> {
  const known = new Set((await repository.listApprovers({ activeOnly: false })).map((person) => person.id));
  const added = DEMO_PEOPLE.filter((person) => !known.has(person.id));
  for (const person of added) await repository.addApprover({ ...person, roles: [...person.roles] });
  return added;
}
