import { z } from 'zod';
import { BOUGHT_STATES, ORDER_STATES } from '../../../domain/lifecycle/index.js';
import type { Queryable } from '../connection.js';
import { ENVIRONMENTS, teamSchema, text, type OrderStatus } from '../schemas.js';
import { operation } from '../validate.js';
import { termEndSql, termsRunningFromSql } from './terms.js';

/**
 * What an environment's teams have committed to, per team and currency, from the records (docs/approval-policy.md,
 * "Teams and budgets"): each order's price is its current quote (what it was approved and bought at), its term is its
 * request's, its purchase its move to BOUGHT and its approval its commitment (the price it was approved at).
 *
 * - Run-rate at `asOf`: the monthly prices of the orders bought before `asOf` whose term (starting at BOUGHT, ending
 *   `term` calendar months later in the budget's time zone) ends after it. `asOf` is now, clamped into the month: its
 *   end for a month gone by, its start for one to come.
 * - Approved this month: the monthly prices committed in the calendar month in the budget's time zone
 *   (`budget_commitments`, written by the workers with the budget check: budget-commitments.ts), of the orders that
 *   have not ended without a buy (an order approved and then rejected on a new quote, cancelled, expired or failed no
 *   longer counts; one sent back for a new approval counts again when its new approval commits it).
 * - Approved, not bought: the monthly prices committed by orders not bought yet and not ended, whatever the month:
 *   they run once bought, so a run-rate cap counts them.
 *
 * Money is summed by PostgreSQL's numeric, exactly, and given as decimal strings; nothing is converted between currencies.
 */
export interface CommitmentReads {
  /** Per team and currency: the figures, beside the budgets given (a budget with nothing committed is listed too). */
  commitmentTotals(query: CommitmentsQuery): Promise<CommitmentTotals>;
  /** The orders behind the figures (in the run-rate, approved in the month, or both), newest first, by keyset. */
  listCommittedOrders(query: CommittedOrdersQuery): Promise<CommittedOrderRecord[]>;
}

/** The ends of an order that never bought: its commitment no longer holds money. */
const ENDED_UNBOUGHT: OrderStatus[] = ['REJECTED', 'EXPIRED', 'CANCELLED', 'FAILED'];
/** Not bought yet and not ended: an approval of one of these holds its money until it is bought or ends. */
const UNBOUGHT: OrderStatus[] = ORDER_STATES.filter(
  (state) => !BOUGHT_STATES.has(state) && !ENDED_UNBOUGHT.includes(state),
);

const amount = z.number().finite().nonnegative();
const currency = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code, e.g. USD');

const commitmentsQuery = z.object({
  environment: z.enum(ENVIRONMENTS),
  /** The calendar month, `YYYY-MM`, in `timeZone`. */
  month: z
    .string()
    .regex(/^[12]\d{3}-(0[1-9]|1[0-2])$/, 'must be a month as YYYY-MM (years 1000 to 2999), e.g. 2026-11'),
  /** An IANA time zone name (the policy's `budgetTimeZone`). */
  timeZone: text(100),
  /** Only this team's orders (and budgets). */
  team: teamSchema.optional(),
  /** Only orders (and budgets) in this currency. */
  currency: currency.optional(),
  /** The policy's budgets, per team and currency; the figures are listed beside them. */
  budgets: z
    .array(z.object({ team: teamSchema, currency, monthlyNew: amount.nullable(), runRateCap: amount.nullable() }))
    .default([]),
  /** Leave this order out (the budget check leaves out the order's own earlier commitment). */
  excluding: text(255).optional(),
});

const committedOrdersQuery = commitmentsQuery.extend({
  after: z.object({ createdAt: z.iso.datetime({ offset: true }), workflowId: text(255) }).optional(),
  limit: z.number().int().min(1).max(100_000).default(100),
});

export type CommitmentsQuery = z.input<typeof commitmentsQuery>;
export type CommittedOrdersQuery = z.input<typeof committedOrdersQuery>;

export interface CommitmentTotals {
  /** The month's bounds, and the moment the run-rate is taken at (ISO instants). */
  monthStart: string;
  monthEnd: string;
  asOf: string;
  /** By team (null: orders charged to no team) then currency. */
  teams: TeamCommitment[];
}

/** A team's figures in one currency, decimal strings; a budget or remaining figure is null where none is set. */
export interface TeamCommitment {
  team: string | null;
  currency: string;
  runRate: string;
  runningOrders: number;
  approvedThisMonth: string;
  approvedOrders: number;
  /** The monthly prices committed by its orders not bought yet (any month): the run-rate cap counts them. */
  approvedNotBought: string;
  budget: { monthlyNew: string | null; runRateCap: string | null };
  /**
   * Budget less what counts against it, as the budget check counts it: the monthly budget less approved this month, the
   * run-rate cap less the run-rate and approved not bought. Negative when over it.
   */
  remaining: { monthlyNew: string | null; runRateCap: string | null };
}

export interface CommittedOrderRecord {
  workflowId: string;
  ticketId: string;
  team: string | null;
  status: OrderStatus;
  currency: string;
  monthlyRate: string;
  termMonths: number;
  /** The monthly rate times the term. */
  termTotal: string;
  /** When it was bought (its term's start), and when its term ends; null while it is not bought. */
  boughtAt: string | null;
  termEndsAt: string | null;
  /** When its approval committed its price (null if none is recorded). */
  approvedAt: string | null;
  inRunRate: boolean;
  approvedThisMonth: boolean;
  createdAt: string;
}

type Query = z.output<typeof commitmentsQuery>;

export function createCommitmentReads(sql: Queryable): CommitmentReads {
  return {
    commitmentTotals: (input) =>
      operation('commitmentTotals', commitmentsQuery, input, async (query) => {
        const [bounds] = await sql<Array<{ month_start: Date; month_end: Date; as_of: Date }>>`
          ${boundsOf(sql, query)} SELECT * FROM bounds`;
        const rows = await sql<TotalsRow[]>`${flagged(sql, query)}, ${totals(sql, query)}`;
        return {
          monthStart: bounds.month_start.toISOString(),
          monthEnd: bounds.month_end.toISOString(),
          asOf: bounds.as_of.toISOString(),
          teams: rows.map(toTeamCommitment),
        };
      }),

    listCommittedOrders: (input) =>
      operation('listCommittedOrders', committedOrdersQuery, input, async (query) => {
        const { after, limit } = query;
        const rows = await sql<CommittedRow[]>`
          ${flagged(sql, query)}
          SELECT workflow_id, ticket_id, team, status, currency, trim_scale(monthly_rate)::text AS monthly_rate,
                 term_months, trim_scale(term_total)::text AS term_total, bought_at, term_ends_at, approved_at,
                 in_run_rate, approved_this_month, created_at
          FROM flagged
          WHERE (in_run_rate OR approved_this_month)
            ${after ? sql`AND (created_at, workflow_id) < (${after.createdAt}::timestamptz, ${after.workflowId})` : sql``}
          ORDER BY created_at DESC, workflow_id DESC
          LIMIT ${limit}`;
        return rows.map(toCommittedOrder);
      }),
  };
}

/**
 * `WITH bounds AS (…)`: the month's first and next month's first instants in the time zone, the run-rate's moment, and
 * the earliest purchase whose term may run then.
 */
function boundsOf(sql: Queryable, { month, timeZone }: Query) {
  const [year, monthNumber] = month.split('-').map(Number);
  return sql`
    WITH local AS (SELECT make_timestamp(${year}::int, ${monthNumber}::int, 1, 0, 0, 0) AS first),
    bounds AS (
      SELECT month_start, month_end, as_of, ${termsRunningFromSql(sql, sql`as_of`)} AS terms_from
      FROM (SELECT month_start, month_end, greatest(month_start, least(now(), month_end)) AS as_of
            FROM (SELECT first AT TIME ZONE ${timeZone} AS month_start,
                         (first + interval '1 month') AT TIME ZONE ${timeZone} AS month_end FROM local) m) a
    )`;
}

/**
 * `running AS (…), candidates AS (…)`: the environment's (and team's) orders that may count, read by index, none twice:
 * the bought ones whose term may still run at the run-rate's moment (an ended term is not read), those not bought yet
 * and not ended, and the others approved in the month. An approval commits before its buy, so the last are none but
 * an order whose commitment was recorded after a buy long gone; they are looked up once the month's commitments of
 * the first are struck off (a commitment is charged as its order is).
 */
function candidates(sql: Queryable, { environment, team, excluding }: Query) {
  const bought = sql([...BOUGHT_STATES]);
  const inView = sql`o.environment = ${environment}
    ${team === undefined ? sql`` : sql`AND o.team = ${team}`}
    ${excluding === undefined ? sql`` : sql`AND o.workflow_id <> ${excluding}`}`;
  return sql`
    running AS MATERIALIZED (
      SELECT o.* FROM orders o
      WHERE ${inView} AND o.status IN ${bought} AND o.bought_at >= (SELECT terms_from FROM bounds)
    ),
    candidates AS (
      SELECT * FROM running
      UNION ALL
      SELECT o.* FROM orders o WHERE ${inView} AND o.status IN ${sql(UNBOUGHT)}
      UNION ALL
      SELECT o.* FROM budget_commitments m JOIN orders o ON o.workflow_id = m.workflow_id CROSS JOIN bounds
      WHERE m.environment = ${environment} ${team === undefined ? sql`` : sql`AND m.team = ${team}`}
        AND m.committed_at >= bounds.month_start AND m.committed_at < bounds.month_end
        AND NOT EXISTS (SELECT 1 FROM running r WHERE r.workflow_id = m.workflow_id)
        AND ${inView} AND o.status IN ${bought} AND (o.bought_at IS NULL OR o.bought_at < bounds.terms_from)
    )`;
}

/**
 * `WITH …, flagged AS (…)`: the candidates, each with its figures and whether it is in the run-rate and approved in
 * the month. Their approval comes from their commitment, unless their own events (the events' key) show a new round
 * after it.
 */
function flagged(sql: Queryable, query: Query) {
  const { currency, timeZone } = query;
  return sql`
    ${boundsOf(sql, query)},
    ${candidates(sql, query)},
    committed AS (
      SELECT o.workflow_id, o.ticket_id, o.team, o.status, o.created_at,
             coalesce(o.quote_currency, c.currency) AS currency,
             coalesce(o.quote_monthly_rate, c.monthly_rate) AS monthly_rate, c.monthly_rate AS committed_rate,
             (o.request ->> 'term')::int AS term_months, o.bought_at, c.committed_at AS approved_at
      FROM candidates o
      LEFT JOIN budget_commitments c ON c.workflow_id = o.workflow_id AND NOT EXISTS (
        SELECT 1 FROM order_events e
        WHERE e.workflow_id = o.workflow_id AND e.to_status = 'AWAITING_APPROVAL' AND e.at > c.committed_at)
      WHERE (o.status IN ${sql([...BOUGHT_STATES])} OR c.workflow_id IS NOT NULL)
        AND coalesce(o.quote_currency, c.currency) IS NOT NULL
        ${currency === undefined ? sql`` : sql`AND coalesce(o.quote_currency, c.currency) = ${currency}`}
    ),
    flagged AS (
      SELECT c.*, c.monthly_rate * c.term_months AS term_total, t.term_ends_at,
             (c.status IN ${sql([...BOUGHT_STATES])} AND c.bought_at < bounds.as_of AND t.term_ends_at > bounds.as_of)
               IS TRUE AS in_run_rate,
             (c.approved_at >= bounds.month_start AND c.approved_at < bounds.month_end) IS TRUE AS approved_this_month,
             (c.committed_rate IS NOT NULL AND c.status NOT IN ${sql([...BOUGHT_STATES])}) AS approved_not_bought
      FROM committed c
      CROSS JOIN bounds
      CROSS JOIN LATERAL (SELECT ${termEndSql(sql, 'c.bought_at', 'c.term_months', timeZone)} AS term_ends_at) t
    )`;
}

/** `figures AS (…), budgets AS (…) SELECT …`: per team and currency, the figures beside the budgets. */
function totals(sql: Queryable, { team, currency, budgets }: Query) {
  const wanted = budgets.filter(
    (budget) =>
      (team === undefined || budget.team === team) && (currency === undefined || budget.currency === currency),
  );
  return sql`
    figures AS (
      SELECT team, currency,
             coalesce(sum(monthly_rate) FILTER (WHERE in_run_rate), 0) AS run_rate,
             count(*) FILTER (WHERE in_run_rate)::int AS running_orders,
             coalesce(sum(committed_rate) FILTER (WHERE approved_this_month), 0) AS approved,
             count(*) FILTER (WHERE approved_this_month)::int AS approved_orders,
             coalesce(sum(committed_rate) FILTER (WHERE approved_not_bought), 0) AS approved_not_bought
      FROM flagged WHERE in_run_rate OR approved_this_month OR approved_not_bought
      GROUP BY team, currency
    ),
    budgets AS (
      SELECT * FROM jsonb_to_recordset(${sql.json(wanted)}::jsonb)
        AS b(team text, currency text, "monthlyNew" numeric, "runRateCap" numeric)
    )
    SELECT coalesce(f.team, b.team) AS team, coalesce(f.currency, b.currency) AS currency,
           trim_scale(coalesce(f.run_rate, 0))::text AS run_rate, coalesce(f.running_orders, 0) AS running_orders,
           trim_scale(coalesce(f.approved, 0))::text AS approved, coalesce(f.approved_orders, 0) AS approved_orders,
           trim_scale(coalesce(f.approved_not_bought, 0))::text AS approved_not_bought,
           trim_scale(b."monthlyNew")::text AS monthly_new, trim_scale(b."runRateCap")::text AS run_rate_cap,
           trim_scale(b."monthlyNew" - coalesce(f.approved, 0))::text AS monthly_new_remaining,
           trim_scale(b."runRateCap" - coalesce(f.run_rate, 0) - coalesce(f.approved_not_bought, 0))::text
             AS run_rate_cap_remaining
    FROM figures f FULL JOIN budgets b ON b.team = f.team AND b.currency = f.currency
    ORDER BY 1 NULLS LAST, 2`;
}

interface TotalsRow {
  team: string | null;
  currency: string;
  run_rate: string;
  running_orders: number;
  approved: string;
  approved_orders: number;
  approved_not_bought: string;
  monthly_new: string | null;
  run_rate_cap: string | null;
  monthly_new_remaining: string | null;
  run_rate_cap_remaining: string | null;
}

function toTeamCommitment(row: TotalsRow): TeamCommitment {
  return {
    team: row.team,
    currency: row.currency,
    runRate: row.run_rate,
    runningOrders: row.running_orders,
    approvedThisMonth: row.approved,
    approvedOrders: row.approved_orders,
    approvedNotBought: row.approved_not_bought,
    budget: { monthlyNew: row.monthly_new, runRateCap: row.run_rate_cap },
    remaining: { monthlyNew: row.monthly_new_remaining, runRateCap: row.run_rate_cap_remaining },
  };
}

interface CommittedRow {
  workflow_id: string;
  ticket_id: string;
  team: string | null;
  status: OrderStatus;
  currency: string;
  monthly_rate: string;
  term_months: number;
  term_total: string;
  bought_at: Date | null;
  term_ends_at: Date | null;
  approved_at: Date | null;
  in_run_rate: boolean;
  approved_this_month: boolean;
  created_at: Date;
}

function toCommittedOrder(row: CommittedRow): CommittedOrderRecord {
  return {
    workflowId: row.workflow_id,
    ticketId: row.ticket_id,
    team: row.team,
    status: row.status,
    currency: row.currency,
    monthlyRate: row.monthly_rate,
    termMonths: row.term_months,
    termTotal: row.term_total,
    boughtAt: row.bought_at?.toISOString() ?? null,
    termEndsAt: row.term_ends_at?.toISOString() ?? null,
    approvedAt: row.approved_at?.toISOString() ?? null,
    inRunRate: row.in_run_rate,
    approvedThisMonth: row.approved_this_month,
    createdAt: row.created_at.toISOString(),
  };
}
