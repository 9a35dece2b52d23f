import type { Repository } from '../../infra/db/index.js';

/** Who can approve the demo's orders: one per role of the default staging policy's tiers. */
export const DEMO_APPROVERS = [
  { id: 'fiona', displayName: 'Fiona (demo)', roles: ['finance-approver'] },
  { id: 'dave', displayName: 'Dave (demo)', roles: ['finance-director'] },
] as const;

/** Adds the demo approvers only to an empty directory, so dev never changes approvers someone has set up. */
export async function seedDemoApprovers(repository: Repository): Promise<typeof DEMO_APPROVERS | []> {
  if ((await repository.listApprovers({ activeOnly: false })).length > 0) return [];
  for (const approver of DEMO_APPROVERS) await repository.addApprover({ ...approver, roles: [...approver.roles] });
  return DEMO_APPROVERS;
}
