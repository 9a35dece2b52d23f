import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { RepositoryError, type Repository } from '../../infra/db/index.js';
import { canonicalJson } from '../../domain/index.js';
import type { PoliciesInForce } from '../../domain/approval/index.js';
import type { Environment, GoverningPolicy } from '../../workflows/order/activity-types.js';

export interface PolicyActivityDeps {
  /** Loaded and validated when the worker starts (MVE_APPROVAL_POLICY_FILE / MVE_APPROVAL_POLICY, else the defaults). */
  policies: PoliciesInForce;
  /** Where the rules of each policy served are stored, by hash (orders name their policy by version and hash). */
  repository: Pick<Repository, 'storeApprovalPolicy'>;
  /** True when approvers are told over a webhook (MVE_APPROVER_WEBHOOK_URL): each new order learns it with its policy. */
  approverWebhook?: boolean;
}

/**
 * The policy reader of each new order's first step (see admission-activity.ts). Gives each new order the policy this worker enforces for its environment, with its version and content hash. The
 * order's journal names the policy by version and hash only, so the rules are stored in Postgres before an order can
 * name them: the first time this worker (its activities are built once per process) serves a hash, it stores it;
 * concurrent orders share that one write, and a write that failed is tried again by the next read. It never waits
 * for a database that does not answer: it answers `unstored`, and the order's journal carries the rules instead, so
 * a database that is down cannot fail an order at its first step.
 */
export function createPolicyActivity(deps: PolicyActivityDeps): {
  loadApprovalPolicy(input: { environment: Environment }): Promise<GoverningPolicy>;
} {
  const stored = new Map<string, Promise<void>>();

  function store(hash: string, policy: object): Promise<void> {
    let write = stored.get(hash);
    if (!write) {
      write = deps.repository
        .storeApprovalPolicy({ hash, policy: policy as Record<string, unknown> })
        .catch((error: unknown) => {
          stored.delete(hash);
          // Stored under this hash with other rules: a corrupted table, which retrying cannot mend.
          if (error instanceof RepositoryError)
            throw ApplicationFailure.nonRetryable(
              `the approval policy ${hash} cannot be stored: ${error.message}`,
              'PolicyNotStored',
            );
          throw error;
        });
      stored.set(hash, write);
    }
    return write;
  }

  return {
    async loadApprovalPolicy({ environment }) {
      const policy = deps.policies.policies[environment];
      if (!policy)
        throw ApplicationFailure.nonRetryable(`the workers hold no approval policy for ${environment}`, 'NoPolicy');
      const hash = policyHash(policy);
      let unstored = false;
      try {
        await store(hash, policy);
      } catch (error) {
        if (error instanceof ApplicationFailure) throw error;
        unstored = true;
      }
      return {
        version: deps.policies.version,
        hash,
        policy,
        ...(deps.approverWebhook ? { approverWebhook: true } : {}),
        ...(unstored ? { unstored: true } : {}),
      };
    },
  };
}

/** SHA-256 of the policy as canonical JSON (keys sorted), so the same rules always give the same hash. */
export function policyHash(policy: object): string {
  return createHash('sha256').update(canonicalJson(policy)).digest('hex');
}
