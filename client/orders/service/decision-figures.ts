import {
  budgetFit,
  budgetTimeZone,
  calendarMonth,
  defaultApprovalPolicies,
  ENVIRONMENTS,
  overBudgetReason,
  teamBudgets,
  type BudgetOverrun,
  type BudgetStanding,
  type Environment,
} from '../../../domain/approval/index.js';
import type { TeamCommitment } from '../../../infra/db/index.js';
import type { OrderServiceParts } from './parts.js';

/**
 * What an approver weighs beside the price (docs/approval-policy.md, "What approvers see"): the order's team, its
 * commitments in the order's currency this month, its budget, and what would remain after this order. Amounts are
 * exact decimal strings, in the order's currency; a budget or remaining figure is null where the policy sets no such
 * limit.
 */
export interface DecisionFigures {
  team: string;
  /** The team's name in the policy (null: a team the policy no longer lists). */
  teamName: string | null;
  currency: string;
  /** The calendar month the figures count, in the policy's time zone, and the moment the run-rate is taken at. */
  month: string;
  timeZone: string;
  asOf: string;
  runRate: string;
  approvedNotBought: string;
  approvedThisMonth: string;
  budget: { monthlyNew: string | null; runRateCap: string | null };
  /** The order's monthly price. */
  price: string;
  remainingAfter: { monthlyNew: string | null; runRateCap: string | null };
  /** Set when this order would take the team over a budget: why, in words, and by how much each limit. */
  overBudget: { reason: string; overruns: BudgetOverrun[] } | null;
}

/** An order as its figures need it: whose money, in which environment, at which price. */
export interface FiguredOrder {
  workflowId: string;
  environment: string;
  team: string | null | undefined;
  quote: { monthlyRate: number; currency: string } | null;
  /** Its quote's number: past 1, the order was approved before and may still hold that commitment. */
  quoteNumber: number;
}

/**
 * One read of the commitments: an environment's team in a currency; leaving out the order's own earlier commitment
 * when it may hold one (re-quoted), as the workers' budget check does, so that it is not counted twice.
 */
interface StandingKey {
  environment: Environment;
  team: string;
  currency: string;
  excluding?: string;
}

/**
 * The decision figures of each order (null: it has no team, no quote, or its environment's policy lists no teams),
 * in the orders' order. The commitments are read once per environment, team and currency, however many orders
 * share them: a page of the inbox costs a read per team, not per row (and one for each order quoted again, read
 * without its own earlier commitment).
 */
export async function decisionFigures(
  parts: OrderServiceParts,
  orders: readonly FiguredOrder[],
): Promise<Array<DecisionFigures | null>> {
  const keys = orders.map((order) => standingKeyOf(parts, order));
  const reads = new Map<string, Promise<Standing>>();
  for (const key of keys) {
    if (key && !reads.has(keyText(key))) reads.set(keyText(key), readStanding(parts, key));
  }
  return Promise.all(
    orders.map(async (order, index) => {
      const key = keys[index];
      if (!key || !order.quote) return null;
      return figuresOf(await reads.get(keyText(key))!, order.quote.monthlyRate);
    }),
  );
}

/** An order as the order service reads it (../order-view.ts's ApiOrder), as far as its figures need it. */
interface ReadOrder {
  workflowId: string;
  environment: string;
  state: string;
  quote: { monthlyRate: number; currency: string } | null;
  quoteHistory?: readonly unknown[] | undefined;
}

/**
 * The figures of one order while it awaits a decision (null: it has no team, or its policy lists none); undefined
 * once it does not await one. `order.team` is the team as the records give it.
 */
export async function orderDecisionFigures(
  parts: OrderServiceParts,
  order: ReadOrder & { team: string | null },
): Promise<DecisionFigures | null | undefined> {
  if (order.state !== 'AWAITING_APPROVAL') return undefined;
  const [figures] = await decisionFigures(parts, [{ ...order, quoteNumber: quoteNumberOf(order) }]);
  return figures ?? null;
}

/**
 * Keeps the figures of this moment with the vote `approverId` is about to cast on the order (awaiting a decision), as
 * the approver was shown them: kept before the vote is sent, so that a vote recorded has them whatever the answer.
 */
export async function keepVoteFigures(parts: OrderServiceParts, order: ReadOrder, approverId: string): Promise<void> {
  // Under a policy without teams there are no figures: a vote costs no read more.
  const environment = ENVIRONMENTS.find((name) => name === order.environment);
  if (!environment || !policyOf(parts, environment).teams) return;
  const team = (await parts.repository.getOrderTeam(order.workflowId)) ?? null;
  const figures = await orderDecisionFigures(parts, { ...order, team });
  if (!figures) return;
  await parts.repository.recordVoteFigures({
    workflowId: order.workflowId,
    quoteNumber: quoteNumberOf(order),
    approverId,
    figures: { ...figures },
  });
}

/** The number of the order's current quote: the live view lists its quotes only when there was more than one. */
function quoteNumberOf(order: Pick<ReadOrder, 'quoteHistory'>): number {
  return order.quoteHistory?.length ?? 1;
}

/** The team's commitments in one currency, with what the figures say about when and by which policy. */
interface Standing {
  standing: BudgetStanding;
  teamName: string | null;
  month: string;
  timeZone: string;
  asOf: string;
}

function standingKeyOf(parts: OrderServiceParts, order: FiguredOrder): StandingKey | null {
  const environment = ENVIRONMENTS.find((name) => name === order.environment);
  if (!environment || !order.team || !order.quote) return null;
  if (!policyOf(parts, environment).teams) return null;
  const key = { environment, team: order.team, currency: order.quote.currency };
  return order.quoteNumber > 1 ? { ...key, excluding: order.workflowId } : key;
}

const keyText = ({ environment, team, currency, excluding }: StandingKey) =>
  [environment, team, currency, excluding ?? ''].join('\n');

async function readStanding(parts: OrderServiceParts, key: StandingKey): Promise<Standing> {
  const { environment, team, currency } = key;
  const policy = policyOf(parts, environment);
  const timeZone = budgetTimeZone(policy);
  const month = calendarMonth(timeZone, Date.now());
  const totals = await parts.repository.commitmentTotals({
    environment,
    month,
    timeZone,
    team,
    currency,
    budgets: teamBudgets(policy),
    ...(key.excluding === undefined ? {} : { excluding: key.excluding }),
  });
  const row = totals.teams.find((entry) => entry.team === team && entry.currency === currency);
  return {
    standing: standingOf(team, currency, row),
    teamName: policy.teams?.find((entry) => entry.id === team)?.name ?? null,
    month,
    timeZone,
    asOf: totals.asOf,
  };
}

/** The figures as budget-fit weighs them; a team with nothing committed and no budget in the currency stands at 0. */
function standingOf(team: string, currency: string, row: TeamCommitment | undefined): BudgetStanding {
  return {
    team,
    currency,
    runRate: row?.runRate ?? '0',
    approvedNotBought: row?.approvedNotBought ?? '0',
    approvedThisMonth: row?.approvedThisMonth ?? '0',
    budget: row?.budget ?? { monthlyNew: null, runRateCap: null },
  };
}

function figuresOf({ standing, teamName, month, timeZone, asOf }: Standing, price: number): DecisionFigures {
  const fit = budgetFit(standing, price);
  const { team, currency, runRate, approvedNotBought, approvedThisMonth, budget } = standing;
  return {
    team,
    teamName,
    currency,
    month,
    timeZone,
    asOf,
    runRate,
    approvedNotBought,
    approvedThisMonth,
    budget,
    price: fit.price,
    remainingAfter: fit.remainingAfter,
    overBudget: fit.overruns.length ? { reason: overBudgetReason(fit), overruns: fit.overruns } : null,
  };
}

function policyOf(parts: OrderServiceParts, environment: Environment) {
  return (parts.policies ?? defaultApprovalPolicies())[environment];
}
