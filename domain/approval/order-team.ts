import type { ApprovalPolicy } from './policy.js';

/** The team an order is charged to (null: its policy lists no teams), or why it has none the policy knows. */
export type OrderTeam = { team: string | null } | { refused: string };

/** What the choice reads of the order: its environment, the request's `costCentre` and its (canonical) requester. */
export interface TeamedRequest {
  environment: string;
  costCentre?: string | undefined;
  requestedBy: string;
}

/** Most team ids a refusal lists; a longer list is cut, since the policy is at hand to whoever needs all of them. */
const LISTED_TEAMS = 20;

/**
 * Whose money the order spends. When the policy lists teams: the request's `costCentre` if it names one of them, else
 * the requester's team in the approver directory if that is one of them; anything else is refused, with the rule it
 * breaks (the refusal is about the request's `costCentre`, the one field the submitter can put right). When the policy
 * lists none, orders belong to no team, and a `costCentre`, which nothing could check, is refused.
 *
 * `directoryTeam`: the requester's team in the directory; null: they have none; undefined: the directory does not
 * know them.
 */
export function orderTeam(
  policy: Pick<ApprovalPolicy, 'teams'>,
  request: TeamedRequest,
  directoryTeam: string | null | undefined,
): OrderTeam {
  const where = `the ${request.environment} policy`;
  const ids = (policy.teams ?? []).map((team) => team.id);
  if (ids.length === 0) {
    if (request.costCentre === undefined) return { team: null };
    return { refused: `${where} charges orders to no team; leave costCentre out` };
  }
  const known = `${where}'s teams are ${listed(ids)}`;
  if (request.costCentre !== undefined) {
    if (ids.includes(request.costCentre)) return { team: request.costCentre };
    return { refused: `"${request.costCentre}" is not a team of ${where}; ${known}` };
  }
  if (directoryTeam && ids.includes(directoryTeam)) return { team: directoryTeam };
  const requester = request.requestedBy;
  const why =
    directoryTeam === undefined
      ? `${requester} is not in the approver directory, so has no team there`
      : directoryTeam === null
        ? `${requester} has no team in the approver directory`
        : `${requester}'s team in the approver directory, "${directoryTeam}", is not one of its teams`;
  return {
    refused: `is required: ${where} charges every order to a team and ${why}; name the team in costCentre (${known}) or give ${requester} one in the directory`,
  };
}

function listed(ids: readonly string[]): string {
  const shown = ids.slice(0, LISTED_TEAMS).join(', ');
  return ids.length > LISTED_TEAMS ? `${shown} and ${ids.length - LISTED_TEAMS} more` : shown;
}
