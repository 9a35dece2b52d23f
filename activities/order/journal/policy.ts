import { RepositoryError } from '../../../infra/db/index.js';
import type { PoliciesInForce } from '../../../domain/approval/index.js';
import { policyHash } from '../policy-activity.js';
import type { EntryOf, EntryTarget } from './types.js';

/**
 * The order's policy, by version and hash. The rules are stored by hash (loadApprovalPolicy); an entry of an older
 * input still carries them, and they are stored with it, since no worker may have stored them.
 */
export async function writePolicy({ records, run, deps }: EntryTarget, entry: EntryOf<'policy'>): Promise<void> {
  const named = { workflowId: run.workflowId, version: entry.version, hash: entry.hash };
  try {
    await records.recordPolicy(entry.policy ? { ...named, policy: entry.policy } : named);
  } catch (error) {
    // A run that read its policy from a worker of before this deploy (which stored no rules) and journals it only
    // now names a hash nobody stored: when it is the hash of a policy this worker serves, its rules are stored.
    const rules =
      error instanceof RepositoryError && error.kind === 'not-found'
        ? rulesServed(deps.policies, entry.hash)
        : undefined;
    if (!rules) throw error;
    await records.recordPolicy({ ...named, policy: rules });
  }
}

/** The rules of the policy this worker serves under `hash`, if it serves one. */
function rulesServed(policies: PoliciesInForce | undefined, hash: string): Record<string, unknown> | undefined {
  return Object.values(policies?.policies ?? {}).find((policy) => policyHash(policy) === hash);
}
