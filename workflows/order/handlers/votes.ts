import { tallyVotes, validateApprovalVote } from '../../../domain/approval/index.js';
import type { VoteInput, VoteResult } from '../messages.js';
import { roundFacts } from '../progress.js';
import type { OrderRun } from '../run.js';
import type { Signed } from '../signed-action.js';
import { refusal, waitFor } from './answers.js';
import type { Signatures } from './signatures.js';

type Decision = 'approve' | 'reject';

/** An approver's vote on the round the order waits in: counted, journaled, and answered with what it led to. */
export function voteHandler(run: OrderRun, signatures: Signatures, decision: Decision) {
  const { recorder } = run;
  const { progress, input } = recorder;
  return async (signed: Signed<VoteInput>): Promise<VoteResult> => {
    const check = checkVote(run, signatures.accept(signed), decision);
    if (!check.ok) throw refusal(check.reason, check.code);
    const round = progress.round!;
    round.votes.push(check.vote);
    recorder.recordVote(check.vote, round.quoteNumber, signed);
    const tally = tallyVotes(roundFacts(input.request.requestedBy, round));
    const result: VoteResult = {
      state: progress.state,
      approvedBy: tally.outcome === 'rejected' ? [] : tally.approvedBy,
      stillNeeded: tally.outcome === 'waiting' ? tally.stillNeeded : 0,
    };
    // A decisive vote answers with the state it led to (APPROVED or REJECTED), not the one before. An approval
    // is answered as APPROVED even though the order is validating again by the time the handler resumes.
    if (result.stillNeeded > 0 && decision === 'approve') return result;
    await waitFor(() => progress.state !== 'AWAITING_APPROVAL' || progress.round !== round);
    // An approval that no longer fits the team's budget opens a round at a higher tier: the order still waits.
    if (progress.state === 'AWAITING_APPROVAL') return escalated(run, progress.round!);
    return { ...result, state: decision === 'approve' ? 'APPROVED' : progress.state };
  };
}

function escalated(run: OrderRun, round: NonNullable<OrderRun['recorder']['progress']['round']>): VoteResult {
  const tally = tallyVotes(roundFacts(run.recorder.input.request.requestedBy, round));
  return {
    state: 'AWAITING_APPROVAL',
    approvedBy: [],
    stillNeeded: tally.outcome === 'waiting' ? tally.stillNeeded : 0,
  };
}

/** Refuses, before anything reaches history, a vote that is unsigned or that the round does not allow. */
export function voteValidator(run: OrderRun, signatures: Signatures, decision: Decision) {
  return (signed: Signed<VoteInput>): void => {
    signatures.require(decision, signed);
    const check = checkVote(run, signed.fields, decision);
    if (!check.ok) throw refusal(check.reason, check.code);
  };
}

function checkVote(run: OrderRun, vote: VoteInput, decision: Decision) {
  const { progress, input } = run.recorder;
  const { round } = progress;
  return validateApprovalVote(
    {
      status: progress.state,
      requesterId: input.request.requestedBy,
      quote: round?.quote ?? { monthlyRate: Number.NaN, currency: '' },
      tier: round?.tier ?? null,
      approvers: round?.approvers ?? [],
      votes: round?.votes ?? [],
    },
    { ...vote, decision },
  );
}
