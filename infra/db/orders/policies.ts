import type { Queryable, Sql } from '../connection.js';
import { RepositoryError } from '../errors.js';
import { jsonParameter } from '../json.js';
import { approvalPolicyInput, policyInput, type ApprovalPolicyInput, type PolicyInput } from '../schemas.js';
import { operation } from '../validate.js';
import { requireOrder } from './require-order.js';

/** Approval policies stored by the hash of their rules, and the one that governs each order. */
export interface OrderPolicies {
  /**
   * Stores an approval policy's rules under their hash, once: storing the same rules again is a no-op; other rules
   * under a stored hash are a conflict.
   */
  storeApprovalPolicy(input: ApprovalPolicyInput): Promise<void>;
  /**
   * The approval policy that governs the order, by version and hash; its rules are copied onto the order from the
   * stored policies (given `policy`, those rules are stored first). Written once (a retry with the same policy is a
   * no-op); a hash that is not stored is refused (`not-found`).
   */
  recordPolicy(input: PolicyInput): Promise<void>;
}

/** `pool`: where transactions run (a connection reserved for pipelined writes cannot hold one of its own). */
export function createOrderPolicies(sql: Sql, pool: Sql): OrderPolicies {
  return {
    storeApprovalPolicy: (input) =>
      operation('storeApprovalPolicy', approvalPolicyInput, input, (policy) => storePolicy(sql, policy)),

    recordPolicy: (input) =>
      operation('recordPolicy', policyInput, input, ({ workflowId, version, hash, policy }) => {
        // Named by hash only (the common case: the rules are stored), one statement; with rules, stored first, together.
        if (!policy) return governOrder(sql, { workflowId, version, hash });
        return pool.begin(async (tx) => {
          await storePolicy(tx, { hash, policy });
          await governOrder(tx, { workflowId, version, hash });
        });
      }),
  };
}

/** Stores a policy's rules under their hash; the same rules again change nothing. */
async function storePolicy(
  sql: Queryable,
  { hash, policy }: { hash: string; policy: Record<string, unknown> },
): Promise<void> {
  const rules = jsonParameter(sql, policy);
  const inserted = await sql`
    INSERT INTO approval_policies (hash, policy) VALUES (${hash}, ${rules}::jsonb)
    ON CONFLICT (hash) DO NOTHING RETURNING 1`;
  if (inserted.length > 0) return;
  const [same] = await sql`SELECT 1 FROM approval_policies WHERE hash = ${hash} AND policy = ${rules}::jsonb`;
  if (!same) throw new RepositoryError('conflict', `storeApprovalPolicy: other rules are stored under hash ${hash}`);
}

/** Copies the stored policy `hash` onto the order, unless another policy governs it already. */
async function governOrder(
  db: Queryable,
  { workflowId, version, hash }: { workflowId: string; version: string; hash: string },
): Promise<void> {
  const updated = await db`
    UPDATE orders o SET policy_version = ${version}, policy_hash = p.hash, policy = p.policy, updated_at = now()
    FROM approval_policies p
    WHERE p.hash = ${hash} AND o.workflow_id = ${workflowId} AND (o.policy_hash IS NULL OR o.policy_hash = ${hash})
    RETURNING 1`;
  if (updated.length > 0) return;
  await requireOrder(db, 'recordPolicy', workflowId);
  const [known] = await db`SELECT 1 FROM approval_policies WHERE hash = ${hash}`;
  if (!known) throw new RepositoryError('not-found', `recordPolicy: no approval policy is stored with hash ${hash}`);
  throw new RepositoryError('conflict', `recordPolicy: order ${workflowId} is already governed by another policy`);
}
