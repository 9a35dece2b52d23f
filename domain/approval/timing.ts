import type { ApprovalPolicy } from './policy.js';

/** All times are epoch milliseconds passed in by the workflow (its deterministic clock), never read here. */

/** When an approval round that started at `startedAt` expires. */
export function approvalDeadline(policy: ApprovalPolicy, startedAt: number): number {
  return startedAt + policy.deadline;
}

/**
 * When to remind approvers during a round, ascending and without repeats: each `beforeDeadline` offset
 * before the deadline, and every `every` from the start, keeping only times strictly inside the round.
 */
export function reminderTimes(policy: ApprovalPolicy, startedAt: number): number[] {
  const deadline = approvalDeadline(policy, startedAt);
  const times = new Set<number>(policy.reminders.beforeDeadline.map((before) => deadline - before));
  const every = policy.reminders.every;
  if (every !== undefined) {
    for (let at = startedAt + every; at < deadline; at += every) times.add(at);
  }
  return [...times].filter((at) => at > startedAt && at < deadline).sort((a, b) => a - b);
}

/** A quote older than the policy's `maxQuoteAge` must be validated again before buying; exactly that age is not. */
export function isQuoteStale(policy: ApprovalPolicy, quotedAt: number, now: number): boolean {
  return now - quotedAt > policy.maxQuoteAge;
}
