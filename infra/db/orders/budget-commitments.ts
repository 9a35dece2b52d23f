import { z } from 'zod';
import { calendarMonth, type BudgetFit, type BudgetStanding } from '../../../domain/approval/index.js';
import type { Queryable, Sql } from '../connection.js';
import { ENVIRONMENTS, moment, teamSchema, text, type Environment } from '../schemas.js';
import { operation } from '../validate.js';
import { createCommitmentReads } from './commitments.js';

/**
 * The approval that commits a team's money (`budget_commitments`, docs/approval-policy.md "Teams and budgets"): the
 * budget check and the commitment are one transaction, under a lock per environment and team, so two approvals
 * landing at once cannot both fit into the same remaining budget. The standing is the commitments read's
 * (commitments.ts), so the figures checked are the figures shown.
 */
export interface BudgetCommitments {
  /** The team's standing in the currency now, this order's own commitment left out: what a preview checks against. */
  budgetStanding(input: StandingInput): Promise<BudgetStanding>;
  /**
   * Under the team's lock: reads the standing (when a budget is given), asks `decide` whether to commit, and writes
   * the order's commitment (replacing an earlier one) when it says so. Answers what `decide` answered.
   */
  commitBudget(
    input: CommitInput,
    decide: (standing: BudgetStanding | null) => CommitDecision,
  ): Promise<CommitDecision>;
  /** Whose money the order spends, as its intake recorded it, or null when no order is recorded for the workflow. */
  orderCharge(workflowId: string): Promise<{ environment: Environment; team: string | null } | null>;
  /** The order's commitment, or null when none is recorded. */
  budgetCommitment(workflowId: string): Promise<BudgetCommitmentRecord | null>;
}

/** What `decide` answers: whether to write the commitment, and what it records. */
export interface CommitDecision {
  commit: boolean;
  overBudget: boolean;
  fit: BudgetFit | null;
}

export interface BudgetCommitmentRecord {
  workflowId: string;
  team: string | null;
  currency: string;
  /** As PostgreSQL keeps it (numeric, as text). */
  monthlyRate: string;
  committedAt: string;
  tier: string | null;
  overBudget: boolean;
  fit: BudgetFit | null;
}

const amount = z.number().finite().nonnegative();
const currency = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code, e.g. USD');

const standingInput = z.object({
  workflowId: text(255),
  environment: z.enum(ENVIRONMENTS),
  team: teamSchema,
  currency,
  /** The policy's `budgetTimeZone`: the month the monthly budget runs in. */
  timeZone: text(100),
  budget: z.object({ monthlyNew: amount.nullable(), runRateCap: amount.nullable() }),
});

const commitInput = z.object({
  workflowId: text(255),
  environment: z.enum(ENVIRONMENTS),
  team: teamSchema.nullable(),
  currency,
  monthlyRate: amount,
  /** The tier whose approvals commit it; null when the policy approved it on its own. */
  tier: text(200).nullable(),
  /** Null: the team has no budget in the currency (or there is no team), so nothing is checked. */
  check: standingInput.pick({ timeZone: true, budget: true }).nullable(),
  /** When the approval committed it: now (the database's clock) unless given, as a record written later gives it. */
  at: moment.optional(),
});

export type StandingInput = z.input<typeof standingInput>;
export type CommitInput = z.input<typeof commitInput>;

/** A namespace of its own for the team locks (two-key advisory locks never meet the migrations' one-key lock). */
const BUDGET_LOCK_CLASS = 4_302_021;

export function createBudgetCommitments(sql: Sql): BudgetCommitments {
  return {
    budgetStanding: (input) => operation('budgetStanding', standingInput, input, (query) => standingOf(sql, query)),

    commitBudget: (input, decide) =>
      operation('commitBudget', commitInput, input, (order) =>
        sql.begin(async (tx): Promise<CommitDecision> => {
          const lockKey = `${order.environment}/${order.team ?? ''}`;
          await tx`SELECT pg_advisory_xact_lock(${BUDGET_LOCK_CLASS}::int, hashtext(${lockKey}))`;
          const standing =
            order.team === null || order.check === null
              ? null
              : await standingOf(tx, { ...order, team: order.team, ...order.check });
          const decision = decide(standing);
          if (decision.commit) await writeCommitment(tx, order, decision);
          return decision;
        }),
      ),

    orderCharge: (workflowId) =>
      operation('orderCharge', text(255), workflowId, async (id) => {
        const [row] = await sql<Array<{ environment: Environment; team: string | null }>>`
          SELECT environment, team FROM orders WHERE workflow_id = ${id}`;
        return row ? { environment: row.environment, team: row.team } : null;
      }),

    budgetCommitment: (workflowId) =>
      operation('budgetCommitment', text(255), workflowId, async (id) => {
        const [row] = await sql<CommitmentRow[]>`
          SELECT workflow_id, team, currency, trim_scale(monthly_rate)::text AS monthly_rate, committed_at, tier,
                 over_budget, fit
          FROM budget_commitments WHERE workflow_id = ${id}`;
        return row ? toRecord(row) : null;
      }),
  };
}

async function standingOf(sql: Queryable, query: z.output<typeof standingInput>): Promise<BudgetStanding> {
  const { workflowId, environment, team, currency, timeZone, budget } = query;
  const totals = await createCommitmentReads(sql).commitmentTotals({
    environment,
    month: calendarMonth(timeZone, Date.now()),
    timeZone,
    team,
    currency,
    budgets: [{ team, currency, ...budget }],
    excluding: workflowId,
  });
  const figures = totals.teams[0];
  return {
    team,
    currency,
    runRate: figures.runRate,
    approvedNotBought: figures.approvedNotBought,
    approvedThisMonth: figures.approvedThisMonth,
    budget: figures.budget,
  };
}

async function writeCommitment(
  sql: Queryable,
  order: z.output<typeof commitInput>,
  { overBudget, fit }: { overBudget: boolean; fit: BudgetFit | null },
): Promise<void> {
  await sql`
    INSERT INTO budget_commitments (workflow_id, environment, team, currency, monthly_rate, committed_at, tier,
                                    over_budget, fit)
    VALUES (${order.workflowId}, ${order.environment}, ${order.team}, ${order.currency}, ${order.monthlyRate}::numeric,
            coalesce(${order.at ?? null}::timestamptz, now()), ${order.tier}, ${overBudget},
            ${fit === null ? null : sql.json(fit as never)})
    ON CONFLICT (workflow_id) DO UPDATE SET
      environment = excluded.environment, team = excluded.team, currency = excluded.currency,
      monthly_rate = excluded.monthly_rate, committed_at = excluded.committed_at, tier = excluded.tier,
      over_budget = excluded.over_budget, fit = excluded.fit`;
}

interface CommitmentRow {
  workflow_id: string;
  team: string | null;
  currency: string;
  monthly_rate: string;
  committed_at: Date;
  tier: string | null;
  over_budget: boolean;
  fit: BudgetFit | null;
}

function toRecord(row: CommitmentRow): BudgetCommitmentRecord {
  return {
    workflowId: row.workflow_id,
    team: row.team,
    currency: row.currency,
    monthlyRate: row.monthly_rate,
    committedAt: row.committed_at.toISOString(),
    tier: row.tier,
    overBudget: row.over_budget,
    fit: row.fit,
  };
}
