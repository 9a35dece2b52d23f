import type { GoverningPolicy } from './activity-types.js';
import { parseApprovalPolicy } from '../../domain/approval/index.js';
import type { Admission } from './admission.js';
import { messageOf } from './failures.js';
import { ENGINE } from './recorder.js';
import type { Ending, GovernedRun, OrderRun } from './run.js';

/**
 * The workers' policy for a new order's environment, given with the run's admission (its first step): it governs the
 * order to its end, whatever the workers hold later. A policy that cannot be had ends the order FAILED.
 */
export function policyOfNewOrder(
  run: OrderRun,
  admission: Admission,
): { governed: GovernedRun } | { ending: NonNullable<Ending> } {
  if (!admission.policy) return { ending: policyRefused(run, admission.policyRefused ?? 'the workers gave none') };
  return adoptPolicy(run, admission.policy);
}

/**
 * The workers' policy, read when the order began, becomes the order's for good: kept with the order's progress,
 * journaled by version and hash (with its rules when the read could not store them), and approvers are listened
 * for when the workers tell them over a webhook. A policy that does not parse ends the order FAILED.
 */
export function adoptPolicy(
  run: OrderRun,
  governing: GoverningPolicy,
): { governed: GovernedRun } | { ending: NonNullable<Ending> } {
  const { recorder } = run;
  recorder.progress.governing = governing;
  let policy;
  try {
    policy = parseApprovalPolicy(governing.policy);
  } catch (error) {
    return { ending: policyRefused(run, messageOf(error)) };
  }
  const { version, hash } = governing;
  recorder.record({ type: 'policy', version, hash, ...(governing.unstored ? { policy: governing.policy } : {}) });
  recorder.listenForApprovers();
  return { governed: Object.assign(run, { policy }) };
}

/** The policy of a run carried over from the order's previous run, which adopted it. */
export function resumePolicy(run: OrderRun, governing: GoverningPolicy): GovernedRun {
  run.recorder.listenForApprovers();
  return Object.assign(run, { policy: parseApprovalPolicy(governing.policy) });
}

/** The order cannot be governed (no policy for its environment, or rules that do not parse): it ends FAILED. */
export function policyRefused(run: OrderRun, why: string): NonNullable<Ending> {
  const message = `invalid approval policy: ${why}`;
  run.recorder.setLastError({ type: 'InvalidPolicy', message });
  return { state: 'FAILED', actor: ENGINE, reason: message };
}
