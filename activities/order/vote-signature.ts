import type { Keyring } from '../../codec/index.js';
import { verifySignature, type ActionTarget, type Signed } from '../../workflows/order/signed-action.js';

/** A vote as the records hold it, with the HTTP API's signature as it came. */
export interface SignedVote {
  approverId: string;
  decision: 'approve' | 'reject';
  monthlyRate: number;
  currency: string;
  signed?: Signed<object> | Record<string, unknown> | null;
}

/**
 * Why the records must not believe this vote, if they must not: only a vote the HTTP API signed for this order (its
 * chain's first run), for this decision, naming this approver and this price, counts. The signature's age is not
 * checked here: the workflow took the vote while it was fresh.
 */
export function voteSignatureRefusal(actionKeys: Keyring, target: ActionTarget, vote: SignedVote): string | undefined {
  const check = verifySignature(actionKeys.exportEntries(), target, vote.decision, vote.signed);
  if (!check.ok) return `the vote of ${vote.approverId} is not signed by the order API for this order: ${check.reason}`;
  const fields = (vote.signed as Signed<Record<string, unknown>>).fields;
  const signedRate = fields['monthlyRate'];
  if (
    String(fields['approverId']).trim() !== vote.approverId.trim() ||
    typeof signedRate !== 'number' ||
    Math.round(signedRate * 1e6) !== Math.round(vote.monthlyRate * 1e6) ||
    String(fields['currency']).trim().toUpperCase() !== vote.currency.trim().toUpperCase()
  ) {
    return `the vote of ${vote.approverId} does not say what the order API signed (approver, price or currency)`;
  }
  return undefined;
}
