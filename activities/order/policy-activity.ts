import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { canonicalJson } from '../../domain/index.js';
import type { PoliciesInForce } from '../../workflows/approval/index.js';
import type { OrderActivities } from './types.js';

export interface PolicyActivityDeps {
  /** Loaded and validated when the worker starts (MVE_APPROVAL_POLICY_FILE / MVE_APPROVAL_POLICY, else the defaults). */
  policies: PoliciesInForce;
  /** True when approvers are told over a webhook (MVE_APPROVER_WEBHOOK_URL): each new order learns it with its policy. */
  approverWebhook?: boolean;
}

/** Gives each new order the policy this worker enforces for its environment, with its version and content hash. */
export function createPolicyActivity(deps: PolicyActivityDeps): Pick<OrderActivities, 'loadApprovalPolicy'> {
  return {
    async loadApprovalPolicy({ environment }) {
      const policy = deps.policies.policies[environment];
      if (!policy) throw ApplicationFailure.nonRetryable(`the workers hold no approval policy for ${environment}`, 'NoPolicy');
      return { version: deps.policies.version, hash: policyHash(policy), policy, ...(deps.approverWebhook ? { approverWebhook: true } : {}) };
    },
  };
}

/** SHA-256 of the policy as canonical JSON (keys sorted), so the same rules always give the same hash. */
export function policyHash(policy: object): string {
  return createHash('sha256').update(canonicalJson(policy)).digest('hex');
}
