import type { Keyring } from '../../codec/index.js';
import { approvalRefusal, type ApprovalVote, type PoliciesInForce } from '../../domain/approval/index.js';
import {
  ticketFingerprint,
  type ApproversRepository,
  type BuyEvidenceRecord,
  type EvidenceRepository,
} from '../../infra/db/index.js';
import type { OrderRequest } from '../../schemas/index.js';
import type { RunReference } from './order-requests.js';
import { quoteSealHolds } from './quote-seal.js';
import { voteSignatureRefusal } from './vote-signature.js';

export interface BuyEvidenceDeps {
  repository: Pick<EvidenceRepository, 'buyEvidence'> & Pick<ApproversRepository, 'listApprovers'>;
  /** The action keys: the quotes' seals and the votes' signatures are checked with them. */
  actionKeys: Keyring;
  /** The approval policies this worker enforces: an approval is judged by its environment's. */
  policies: PoliciesInForce;
}

/**
 * Why this buy must not be sent, or undefined when the records prove its right to spend (docs/security.md): the
 * API registered the ticket with exactly this request, the order is being bought (not ended, not waiting), the price
 * is the last one a worker was quoted for it (sealed), and that price is approved — automatically under this
 * worker's policy, or by votes the HTTP API signed, enough for the tier. The run itself was admitted (run-guard.ts);
 * at most one buy per ticket is the claim's (`claimBuyForSending`). A database that does not answer is thrown.
 */
export async function buyRefusal(
  deps: BuyEvidenceDeps,
  run: RunReference,
  request: OrderRequest,
): Promise<string | undefined> {
  const evidence = await deps.repository.buyEvidence(run.workflowId);
  const { ticket, order } = evidence;
  if (!ticket?.claimedRunId) return 'the order API registered no ticket for this order, or no run claimed it';
  if (ticketFingerprint(deps.actionKeys, ticket.fingerprintKeyId, request) !== ticket.fingerprint)
    return 'the request to buy is not the one the order API registered for the ticket';
  if (!order) return 'the order API recorded no order for the ticket';
  if (order.status !== 'BUYING') return `the records say the order is ${order.status}, not being bought`;
  const quotes = sealedQuotes(deps.actionKeys, run.workflowId, evidence);
  const buying = quotes.at(-1);
  if (!buying || !order.quote || !samePrice(buying, order.quote))
    return 'the price to pay is not the last quote a worker obtained for the order';
  const policy = deps.policies.policies[order.environment];
  if (!policy) return `this worker holds no approval policy for ${order.environment}`;
  const votes = signedVotes(deps.actionKeys, { workflowId: run.workflowId, firstRunId: ticket.claimedRunId }, evidence);
  const refusal = approvalRefusal({
    policy,
    requesterId: order.requestedBy,
    quotes,
    votes,
    approvers: votes.length ? await deps.repository.listApprovers() : [],
  });
  return refusal && `${refusal} (checked against the records: quotes the workers obtained, votes the API signed)`;
}

function sealedQuotes(keys: Keyring, workflowId: string, evidence: BuyEvidenceRecord) {
  return evidence.workerQuotes
    .filter((quote) => quoteSealHolds(keys, { workflowId, ...quote }, quote.seal))
    .map(({ monthlyRate, currency }) => ({ monthlyRate, currency }));
}

/** The votes whose signatures hold; any other is not counted (the records refuse them, and so does the buy). */
function signedVotes(
  keys: Keyring,
  target: { workflowId: string; firstRunId: string },
  evidence: BuyEvidenceRecord,
): ApprovalVote[] {
  return evidence.votes
    .filter((vote) => voteSignatureRefusal(keys, target, vote) === undefined)
    .map(({ approverId, decision, monthlyRate, currency }) => ({ approverId, decision, monthlyRate, currency }));
}

function samePrice(a: { monthlyRate: number; currency: string }, b: { monthlyRate: number; currency: string }) {
  return a.currency === b.currency && Math.round(a.monthlyRate * 1e6) === Math.round(b.monthlyRate * 1e6);
}
