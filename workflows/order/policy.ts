import type { GoverningPolicy } from './activity-types.js';
import { parseApprovalPolicy } from '../../domain/approval/index.js';
import { messageOf } from './failures.js';
import { ENGINE } from './recorder.js';
import type { Ending, OrderRun } from './run.js';

/**
 * The workers' policy, read when the order began, becomes the order's for good: kept with the order's progress,
 * journaled by version and hash (with its rules when the read could not store them), and approvers are listened
 * for when the workers tell them over a webhook. A policy that does not parse ends the order FAILED.
 */
export function adoptPolicy(run: OrderRun, governing: GoverningPolicy): Ending {
  const { recorder } = run;
  recorder.progress.governing = governing;
  try {
    run.policy = parseApprovalPolicy(governing.policy);
  } catch (error) {
    return policyRefused(run, messageOf(error));
  }
  const { version, hash } = governing;
  recorder.record({ type: 'policy', version, hash, ...(governing.unstored ? { policy: governing.policy } : {}) });
  recorder.listenForApprovers();
  return undefined;
}

/** The order cannot be governed (no policy for its environment, or rules that do not parse): it ends FAILED. */
export function policyRefused(run: OrderRun, why: string): NonNullable<Ending> {
  const message = `invalid approval policy: ${why}`;
  run.recorder.setLastError({ type: 'InvalidPolicy', message });
  return { state: 'FAILED', actor: ENGINE, reason: message };
}
