import { condition } from '@temporalio/workflow';
import {
  approvalDeadline,
  approversFoundMessage,
  DEFAULT_DIRECTORY_RECHECK_MS,
  eligibleApprovers,
  reminderTimes,
  tallyVotes,
} from '../../domain/approval/index.js';
import { records } from './activities.js';
import { commitApproval } from './budget-gate.js';
import { continueAsNewIfDue } from './continue-as-new.js';
import { roundEligibility, roundFacts, type ApprovalRound, type RoundStart } from './progress.js';
import type { Ending, GovernedRun } from './run.js';

export type { RoundStart } from './progress.js';

/**
 * One approval round: the quote waits for the tier's votes until it is approved, rejected or past its deadline,
 * with reminders on the policy's schedule. Without `start`, resumes the round the order carried into this run.
 * Votes arrive through the update handlers (handlers/votes.ts), which add them to the round. A round that fewer
 * approvers could vote on than its tier needs says so, and reads the directory again until enough could (see
 * `checkShortfall`).
 */
export async function awaitApproval(run: GovernedRun, start?: RoundStart): Promise<Ending> {
  const { recorder, policy } = run;
  const { progress } = recorder;
  const { environment, requestedBy } = recorder.input.request;
  if (start) openRound(run, start, await records.loadApprovers({ environment }));
  let round = progress.round!;
  checkShortfall(run, round);
  let reminders = reminderTimes(policy, round.startedAt);
  for (;;) {
    const tally = tallyVotes(roundFacts(requestedBy, round));
    if (tally.outcome === 'approved') {
      // The approval commits the price against the team's budget; one that no longer fits goes to the budget's tier.
      const verdict = await commitApproval(run, round.quote, round.tier);
      if (verdict.kind === 'end') return verdict.ending;
      if (verdict.kind === 'escalate') {
        openRound(run, verdict.start, await records.loadApprovers({ environment }), true);
        round = progress.round!;
        checkShortfall(run, round);
        reminders = reminderTimes(policy, round.startedAt);
        continue;
      }
      const details = Object.keys(verdict.details).length > 0 ? verdict.details : undefined;
      recorder.moveTo(
        'APPROVED',
        tally.approvedBy.join(', '),
        `approved by ${tally.approvedBy.join(', ')} at ${round.quote.monthlyRate} ${round.quote.currency}`,
        details,
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
    const reminderAt = reminders.find((at) => at > now) ?? round.deadline;
    const readAt = round.nextDirectoryReadAt;
    const wakeAt = readAt !== undefined && readAt < reminderAt ? readAt : reminderAt;
    if (await condition(voted, Math.max(1, wakeAt - now))) continue;
    if (Date.now() >= round.deadline) return expired(run, round);
    if (wakeAt !== reminderAt) {
      await readDirectoryAgain(run, round);
      continue;
    }
    round.remindersSent++;
    round.approvers = await records.loadApprovers({ environment });
    round.directoryReadAt = Date.now();
    checkShortfall(run, round);
    recorder.noteAndNotify(
      'policy',
      'approval-reminder',
      `reminder ${round.remindersSent}: approval still needed (${tally.stillNeeded} more)`,
    );
    recorder.tellApprovers('approval-reminder');
  }
}

/**
 * A new round on the quote, decided by the tier, with the directory as just read. `escalated`: the order awaits
 * approval already (an approval that no longer fits the budget goes to a higher tier), so the round is noted on the
 * timeline rather than moved to.
 */
function openRound(
  run: GovernedRun,
  start: RoundStart,
  approvers: ApprovalRound['approvers'],
  escalated = false,
): void {
  const { recorder, policy } = run;
  const { progress } = recorder;
  const startedAt = Date.now();
  const deadline = approvalDeadline(policy, startedAt);
  const round: ApprovalRound = {
    tier: start.tier,
    quote: start.quote,
    quoteNumber: progress.quotes.length,
    approvers,
    votes: [],
    startedAt,
    deadline,
    remindersSent: 0,
    directoryReadAt: startedAt,
    ...(start.budget ? { overBudget: start.reason } : {}),
  };
  progress.round = round;
  const { tier } = start;
  const details = {
    tier: tier.name,
    roles: tier.roles,
    approvals: tier.approvals,
    deadline: new Date(deadline).toISOString(),
    eligibleApprovers: roundEligibility(recorder.input.request.requestedBy, round).eligible.length,
    ...(start.budget ? { budget: start.budget } : {}),
  };
  if (escalated) recorder.note('policy', start.reason, details);
  else recorder.moveTo('AWAITING_APPROVAL', 'policy', start.reason, details);
  recorder.tellApprovers('awaiting-approval');
}

/**
 * After the directory was read (or a round resumed): a round that fewer approvers could vote on than its tier needs
 * is noted on the timeline and told to the ticket system once, and reads the directory again on the policy's
 * `directoryRecheck` (`nextDirectoryReadAt`); once enough could vote, that is noted and told, and the reads stop. Runs
 * that began before this (`flagsRoundsShortOfApprovers`) read it at reminders only, as they did.
 */
function checkShortfall(run: GovernedRun, round: ApprovalRound): void {
  const { recorder, policy } = run;
  const { eligible, shortfall } = roundEligibility(recorder.input.request.requestedBy, round);
  const flagged = round.nextDirectoryReadAt !== undefined;
  if (!shortfall) {
    if (!flagged) return;
    delete round.nextDirectoryReadAt;
    recorder.noteAndNotify('policy', 'approvers-found', approversFoundMessage(round, eligible), {
      eligibleApprovers: eligible.length,
    });
    return;
  }
  if (!run.changes.flagsRoundsShortOfApprovers()) return;
  round.nextDirectoryReadAt = Date.now() + (policy.directoryRecheck ?? DEFAULT_DIRECTORY_RECHECK_MS);
  if (flagged) return;
  recorder.noteAndNotify('policy', 'approvers-missing', shortfall.message, {
    eligibleApprovers: shortfall.eligible,
    approvals: shortfall.needed,
  });
}

/**
 * A round short of approvers reads, at `nextDirectoryReadAt`, only who holds the tier's roles (a few people, not the
 * directory, in history); when that differs from whom the round knows, it reads the whole directory, which votes are
 * checked against, so someone given a role meanwhile can vote now.
 */
async function readDirectoryAgain(run: GovernedRun, round: ApprovalRound): Promise<void> {
  const { environment, requestedBy } = run.recorder.input.request;
  const holders = await records.loadApprovers({ environment, roles: [...round.tier.roles] });
  round.directoryReadAt = Date.now();
  const found = eligibleApprovers({ requesterId: requestedBy, tier: round.tier }, holders);
  const known = roundEligibility(requestedBy, round).eligible;
  if (found.length !== known.length || found.some((id, i) => id !== known[i])) {
    round.approvers = await records.loadApprovers({ environment });
    round.directoryReadAt = Date.now();
  }
  checkShortfall(run, round);
}

/** The deadline passed without a decision; a round that no one could approve says so. */
function expired(run: GovernedRun, round: ApprovalRound): NonNullable<Ending> {
  const deadline = `no decision by the deadline ${new Date(round.deadline).toISOString()}`;
  const { shortfall } = roundEligibility(run.recorder.input.request.requestedBy, round);
  return {
    state: 'EXPIRED',
    actor: 'policy',
    reason:
      shortfall && round.nextDirectoryReadAt !== undefined
        ? `${deadline}: no one could approve it (${shortfall.eligible} of the ${shortfall.needed} approvers the "${round.tier.name}" tier needs held its roles)`
        : deadline,
  };
}
