import type { Repository } from '../../infra/db/index.js';

/**
 * The people of the demo's directory: one approver per role of the default staging policy's tiers, and alice, the
 * requester a ticket system names (the examples' `requestedBy`): a ticket system may only order for a person the
 * directory knows. Each is in a team of dev's policy (./approval-policy.json), which every staging order is charged to.
 */
export const DEMO_PEOPLE = [
  { id: 'fiona', displayName: 'Fiona (demo)', roles: ['finance-approver'], team: 'network' },
  { id: 'dave', displayName: 'Dave (demo)', roles: ['finance-director'], team: 'network' },
  { id: 'alice', displayName: 'Alice (demo requester)', roles: [], team: 'network' },
] as const;

/**
 * Adds the demo people the directory lacks (by id), so dev never changes a person someone has set up or
 * deactivated, and a data folder made before a demo person existed gets them too. A demo person a data folder made
 * before teams holds without one gets their demo team: without it their staging orders would be refused.
 */
export async function seedDemoPeople(repository: Repository): Promise<Array<(typeof DEMO_PEOPLE)[number]>> {
  const known = new Map((await repository.listApprovers({ activeOnly: false })).map((person) => [person.id, person]));
  const added = DEMO_PEOPLE.filter((person) => !known.has(person.id));
  for (const person of added) await repository.addApprover({ ...person, roles: [...person.roles] });
  for (const person of DEMO_PEOPLE) {
    if (known.get(person.id)?.team === null) await repository.updateApprover({ id: person.id, team: person.team });
  }
  return added;
}
