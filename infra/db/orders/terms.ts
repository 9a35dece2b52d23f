import type postgres from 'postgres';
import { TERMS } from '../../../schemas/index.js';
import type { Queryable } from '../connection.js';

/**
 * An order's term as the commitments, the budget check and the renewals count it (docs/approval-policy.md, "Teams and
 * budgets"): it starts at the order's first move to BOUGHT (`orders.bought_at`, kept as the move is recorded) and ends `term`
 * calendar months later on the wall clock of the budget's time zone (a term bought at 10:00 on 31 January in Sydney
 * ends at 10:00 on 28 or 29 February there).
 */

/** The instant a term ends: `termMonths` calendar months after `boughtAt`, counted in `timeZone`. */
export function termEndSql(sql: Queryable, boughtAt: string, termMonths: string, timeZone: string) {
  return sql`((${sql(boughtAt)} AT TIME ZONE ${timeZone} + make_interval(months => ${sql(termMonths)}))
              AT TIME ZONE ${timeZone})`;
}

/**
 * Days that hold the longest term an order can have, in any time zone: 31 days a month, and 2 for the zone's offset
 * changing meanwhile (offsets span 26 hours).
 */
const LONGEST_TERM_DAYS = 31 * Math.max(...TERMS) + 2;

/**
 * The earliest purchase whose term may still run at `at` (an SQL expression): a term bought before it has certainly
 * ended, so the reads leave it out by the orders' index on `bought_at` without working its end out.
 */
export function termsRunningFromSql(sql: Queryable, at: postgres.Fragment) {
  return sql`(${at} - make_interval(days => ${LONGEST_TERM_DAYS}))`;
}
