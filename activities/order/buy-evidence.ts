import type { Keyring } from '../../codec/index.js';
import {
  approvalRefusal,
  formatQuote,
  REFUSE_OVER_BUDGET,
  tallyVotes,
  type ApprovalPolicy,
  type ApprovalVote,
  type Approver,
  type PoliciesInForce,
  type Quote,
} from '../../domain/approval/index.js';
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
 * worker's policy, or by votes the HTTP API signed, enough for the tier — and, when its team has a budget, committed
 * against it (by the `overBudget` tier's votes when over it). The run itself was admitted (run-guard.ts);
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
  const approvers = votes.length ? await deps.repository.listApprovers() : [];
  const refusal =
    approvalRefusal({ policy, requesterId: order.requestedBy, quotes, votes, approvers }) ??
    commitmentRefusal({ policy, order, commitment: evidence.commitment, buying, votes, approvers });
  return refusal && `${refusal} (checked against the records: quotes the workers obtained, votes the API signed)`;
}

/**
 * When the order's team has a budget in the currency, the buy spends only a price its approval committed (the
 * commitment's price covers the one bought); a commitment over budget needs the approvals of the policy's
 * `overBudget` tier, tallied from the signed votes at the committed price.
 */
function commitmentRefusal(facts: {
  policy: ApprovalPolicy;
  order: NonNullable<BuyEvidenceRecord['order']>;
  commitment: BuyEvidenceRecord['commitment'];
  buying: Quote;
  votes: ApprovalVote[];
  approvers: Approver[];
}): string | undefined {
  const { policy, order, commitment, buying } = facts;
  const budget = policy.teams?.find((team) => team.id === order.team)?.budget;
  if (budget?.monthlyNew?.[buying.currency] === undefined && budget?.runRateCap?.[buying.currency] === undefined)
    return undefined;
  if (
    !commitment ||
    commitment.currency !== buying.currency ||
    micros(commitment.monthlyRate) < micros(buying.monthlyRate)
  )
    return `no approval committed ${formatQuote(buying)} against team ${order.team}'s budget`;
  if (!commitment.overBudget) return undefined;
  const rule = policy.overBudget;
  if (rule === undefined || rule === REFUSE_OVER_BUDGET)
    return `the policy refuses an order over team ${order.team}'s budget`;
  const index = policy.tiers.findIndex((tier) => tier.name === rule.tier);
  const { name, roles, approvals } = policy.tiers[index];
  const committed = { monthlyRate: commitment.monthlyRate, currency: commitment.currency };
  const tally = tallyVotes({
    requesterId: order.requestedBy,
    quote: committed,
    tier: { index, name, roles: [...roles], approvals },
    approvers: facts.approvers,
    votes: facts.votes.filter(
      (vote) => vote.currency === committed.currency && micros(vote.monthlyRate) === micros(committed.monthlyRate),
    ),
  });
  return tally.outcome === 'approved'
    ? undefined
    : `${formatQuote(committed)} is over team ${order.team}'s budget and the "${name}" tier has not approved it`;
}

function micros(amount: number): number {
  return Math.round(amount * 1e6);
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
