import { z } from 'zod';
import { BOUGHT_STATES } from '../../../domain/lifecycle/index.js';
import type { Sql } from '../connection.js';
import { ENVIRONMENTS, teamSchema, text } from '../schemas.js';
import { operation } from '../validate.js';
import { termEndSql, termsRunningFromSql } from './terms.js';

/**
 * The terms coming to an end (docs/approval-policy.md, "Teams and budgets"): the bought orders whose term (./terms.ts) runs
 * at `from` and ends within `days` days of it, the soonest first. Terms certainly ended by `from` are not read.
 */
export interface RenewalReads {
  listRenewals(query: RenewalsQuery): Promise<RenewalRecord[]>;
}

const renewalsQuery = z.object({
  environment: z.enum(ENVIRONMENTS),
  /** An IANA time zone name (the policy's `budgetTimeZone`): the months of a term are counted in it. */
  timeZone: text(100),
  /** The moment the window opens (the commitments' `asOf`). */
  from: z.iso.datetime({ offset: true }),
  days: z.number().int().min(1).max(366),
  team: teamSchema.optional(),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code, e.g. USD')
    .optional(),
  limit: z.number().int().min(1).max(10_000).default(500),
});

export type RenewalsQuery = z.input<typeof renewalsQuery>;

export interface RenewalRecord {
  workflowId: string;
  ticketId: string;
  team: string | null;
  currency: string;
  monthlyRate: string;
  termMonths: number;
  boughtAt: string;
  termEndsAt: string;
  /** Whole days from `from` to the term's end, a part of a day counting as one. */
  daysLeft: number;
}

export function createRenewalReads(sql: Sql): RenewalReads {
  return {
    listRenewals: (input) =>
      operation('listRenewals', renewalsQuery, input, async (query) => {
        const { environment, timeZone, from, days, team, currency, limit } = query;
        const rows = await sql<RenewalRow[]>`
          WITH bought AS (
            SELECT o.workflow_id, o.ticket_id, o.team, o.quote_currency AS currency,
                   o.quote_monthly_rate AS monthly_rate, (o.request ->> 'term')::int AS term_months, o.bought_at
            FROM orders o
            WHERE o.environment = ${environment} AND o.status IN ${sql([...BOUGHT_STATES])}
              AND o.bought_at >= ${termsRunningFromSql(sql, sql`${from}::timestamptz`)}
              AND o.quote_currency IS NOT NULL
              ${team === undefined ? sql`` : sql`AND o.team = ${team}`}
              ${currency === undefined ? sql`` : sql`AND o.quote_currency = ${currency}`}
          ),
          ending AS (
            SELECT *, ${termEndSql(sql, 'bought_at', 'term_months', timeZone)} AS term_ends_at FROM bought
          )
          SELECT workflow_id, ticket_id, team, currency, trim_scale(monthly_rate)::text AS monthly_rate, term_months,
                 bought_at, term_ends_at,
                 ceil(extract(epoch FROM term_ends_at - ${from}::timestamptz) / 86400)::int AS days_left
          FROM ending
          WHERE bought_at < ${from}::timestamptz AND term_ends_at > ${from}::timestamptz
            AND term_ends_at <= ${from}::timestamptz + make_interval(days => ${days}::int)
          ORDER BY term_ends_at, workflow_id
          LIMIT ${limit}`;
        return rows.map(toRenewal);
      }),
  };
}

interface RenewalRow {
  workflow_id: string;
  ticket_id: string;
  team: string | null;
  currency: string;
  monthly_rate: string;
  term_months: number;
  bought_at: Date;
  term_ends_at: Date;
  days_left: number;
}

function toRenewal(row: RenewalRow): RenewalRecord {
  return {
    workflowId: row.workflow_id,
    ticketId: row.ticket_id,
    team: row.team,
    currency: row.currency,
    monthlyRate: row.monthly_rate,
    termMonths: row.term_months,
    boughtAt: row.bought_at.toISOString(),
    termEndsAt: row.term_ends_at.toISOString(),
    daysLeft: row.days_left,
  };
}
