import { RepositoryError } from '../../../infra/db/index.js';
import { voteSignatureRefusal } from '../vote-signature.js';
import { currencyCode, fit, money } from './record-values.js';
import type { EntryOf, EntryTarget } from './types.js';

/** An approver's vote, recorded only when the HTTP API signed it for this order: a run cannot make one up. */
export async function writeVote({ records, run, deps }: EntryTarget, entry: EntryOf<'vote'>): Promise<void> {
  const { workflowId } = run;
  const ticket = await deps.repository.getTicketByWorkflow(workflowId);
  const refusal = ticket?.claimedRunId
    ? voteSignatureRefusal(deps.actionKeys, { workflowId, firstRunId: ticket.claimedRunId }, entry)
    : 'no run has claimed the order\u2019s ticket';
  if (refusal) throw new RepositoryError('invalid-input', `recordApprovalVote: ${refusal}`);
  await records.recordApprovalVote({
    workflowId,
    quoteNumber: entry.quoteNumber,
    approverId: entry.approverId,
    decision: entry.decision,
    monthlyRate: money(entry.monthlyRate),
    currency: currencyCode(entry.currency),
    reason: entry.comment === undefined ? null : fit(entry.comment, 2000),
    at: new Date(entry.at),
    signature: entry.signed as unknown as Record<string, unknown>,
  });
}
