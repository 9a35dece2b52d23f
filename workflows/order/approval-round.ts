import { condition } from '@temporalio/workflow';
import type { QuoteRecord } from './activity-types.js';
import { approvalDeadline, reminderTimes, tallyVotes, type ApprovalTier } from '../../domain/approval/index.js';
import { records } from './activities.js';
import { continueAsNewIfDue } from './continue-as-new.js';
import { roundFacts } from './progress.js';
import type { Ending, GovernedRun } from './run.js';

export interface RoundStart {
  tier: ApprovalTier;
  quote: QuoteRecord;
  /** Why approval is needed, as the timeline says it. */
  reason: string;
}

/**
 * One approval round: the quote waits for the tier's votes until it is approved, rejected or past its deadline,
 * with reminders on the policy's schedule. Without `start`, resumes the round the order carried into this run.
 * Votes arrive through the update handlers (handlers/votes.ts), which add them to the round.
 */
export async function awaitApproval(run: GovernedRun, start?: RoundStart): Promise<Ending> {
  const { recorder, policy } = run;
  const { progress } = recorder;
  const { environment, requestedBy } = recorder.input.request;
  if (start) {
    const approvers = await records.loadApprovers({ environment });
    const startedAt = Date.now();
    const deadline = approvalDeadline(policy, startedAt);
    progress.round = {
      tier: start.tier,
      quote: start.quote,
      quoteNumber: progress.quotes.length,
      approvers,
      votes: [],
      startedAt,
      deadline,
      remindersSent: 0,
    };
    const { tier } = start;
    recorder.moveTo('AWAITING_APPROVAL', 'policy', start.reason, {
      tier: tier.name,
      roles: tier.roles,
      approvals: tier.approvals,
      deadline: new Date(deadline).toISOString(),
    });
    recorder.tellApprovers('awaiting-approval');
  }
  const round = progress.round!;
  const reminders = reminderTimes(policy, round.startedAt);
  for (;;) {
    const tally = tallyVotes(roundFacts(requestedBy, round));
    if (tally.outcome === 'approved') {
      recorder.moveTo(
        'APPROVED',
        tally.approvedBy.join(', '),
        `approved by ${tally.approvedBy.join(', ')} at ${round.quote.monthlyRate} ${round.quote.currency}`,
      );
      progress.approved = round.quote;
      return undefined;
    }
    if (tally.outcome === 'rejected') {
      return { state: 'REJECTED', actor: tally.rejectedBy, reason: tally.comment ?? `rejected by ${tally.rejectedBy}` };
    }
    const votesSeen = round.votes.length;
    const voted = () => round.votes.length !== votesSeen;
    recorder.checkpoint();
    await continueAsNewIfDue(run, voted);
    const now = Date.now();
    const wakeAt = reminders.find((at) => at > now) ?? round.deadline;
    if (await condition(voted, Math.max(1, wakeAt - now))) continue;
    if (Date.now() >= round.deadline) {
      return {
        state: 'EXPIRED',
        actor: 'policy',
        reason: `no decision by the deadline ${new Date(round.deadline).toISOString()}`,
      };
    }
    round.remindersSent++;
    round.approvers = await records.loadApprovers({ environment });
    recorder.noteAndNotify(
      'policy',
      'approval-reminder',
      `reminder ${round.remindersSent}: approval still needed (${tally.stillNeeded} more)`,
    );
    recorder.tellApprovers('approval-reminder');
  }
}
