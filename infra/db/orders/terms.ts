import type { Queryable } from '../connection.js';

/**
 * An order's term as the commitments, the budget check and the renewals count it (docs/approval-policy.md, "Teams and
 * budgets"): it starts at the order's first move to BOUGHT and ends `term` calendar months later on the wall clock of
 * the budget's time zone (a term bought at 10:00 on 31 January in Sydney ends at 10:00 on 28 or 29 February there).
 */

/** `LEFT JOIN LATERAL (…) <alias> ON true`: the first move to BOUGHT of the order `workflowId` names, as `<alias>.at`. */
export function firstBoughtJoin(sql: Queryable, workflowId: string, alias: string) {
  return sql`LEFT JOIN LATERAL (SELECT min(e.at) AS at FROM order_events e
                                WHERE e.workflow_id = ${sql(workflowId)} AND e.to_status = 'BOUGHT') ${sql(alias)} ON true`;
}

/** The instant a term ends: `termMonths` calendar months after `boughtAt`, counted in `timeZone`. */
export function termEndSql(sql: Queryable, boughtAt: string, termMonths: string, timeZone: string) {
  return sql`((${sql(boughtAt)} AT TIME ZONE ${timeZone} + make_interval(months => ${sql(termMonths)}))
              AT TIME ZONE ${timeZone})`;
}
