import { formatQuote, type ApprovalTier } from './requirement.js';
import { voterRefusal, type Approver } from './votes.js';

/**
 * Who could decide an approval round: by the directory as the order last read it, the approvers whose vote the
 * round's rules would count. Pure, so the workflow uses it when it reads the directory and the status query shows it.
 */

/** How long a round short of approvers waits before it reads the directory again, when its policy does not say. */
export const DEFAULT_DIRECTORY_RECHECK_MS = 15 * 60_000;

/**
 * The approvers (directory ids, in the directory's order) who may vote on a round of `tier` for `requesterId`:
 * active, holding one of the tier's roles, and neither the requester nor a look-alike of their name (`voterRefusal`,
 * the vote rules themselves, asked before any vote). Approvers who have voted already are among them.
 */
export function eligibleApprovers(
  round: { requesterId: string; tier: ApprovalTier },
  approvers: readonly Approver[],
): string[] {
  return approvers.filter((approver) => !voterRefusal(round, approver.id, approver, [])).map(({ id }) => id);
}

/** What a round short of approvers says of itself: why no one can approve it, and what would change that. */
export interface ApproverShortfall {
  /** Approvers other than the requester who could vote (fewer than `needed`). */
  eligible: number;
  needed: number;
  /** One sentence, for the timeline, the API, the console and the ticket system. */
  message: string;
}

/**
 * When fewer approvers could vote on the round than its tier needs approvals, nothing but a change to the directory
 * lets the order be approved: says so, with what to do. Undefined when enough could.
 */
export function approverShortfall(
  round: { requesterId: string; tier: ApprovalTier },
  eligible: readonly string[],
): ApproverShortfall | undefined {
  const { tier, requesterId } = round;
  const needed = tier.approvals;
  if (eligible.length >= needed) return undefined;
  const roles = tier.roles.join(' or ');
  const who =
    eligible.length === 0
      ? `no active approver but the requester (${requesterId}) holds ${roles}`
      : `only ${eligible.length} active approver${eligible.length === 1 ? '' : 's'} other than the requester (${requesterId}) ${eligible.length === 1 ? 'holds' : 'hold'} ${roles}`;
  const more = needed - eligible.length;
  return {
    eligible: eligible.length,
    needed,
    message:
      `no one can approve this order: the "${tier.name}" tier needs ${needed} approval${needed === 1 ? '' : 's'} and ${who}; ` +
      `give ${more === 1 ? 'one more person' : `${more} more people`} one of these roles in the approver directory, or cancel the order`,
  };
}

/** A round that was short of approvers and no longer is: who may now vote. */
export function approversFoundMessage(
  round: { tier: ApprovalTier; quote: { monthlyRate: number; currency: string } },
  eligible: readonly string[],
): string {
  return (
    `approvers found: ${eligible.join(', ')} may now approve ${formatQuote(round.quote)} ` +
    `(the "${round.tier.name}" tier needs ${round.tier.approvals})`
  );
}
