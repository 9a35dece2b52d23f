import type { Sql } from '../connection.js';

/** What the metrics endpoint reads about orders. */
export interface OrderStatisticsReads {
  /** Counts for the metrics endpoint: orders by state, approvals pending and the oldest one's age, buy attempts by outcome. */
  orderStatistics(): Promise<OrderStatistics>;
}

export interface OrderStatistics {
  ordersByState: Record<string, number>;
  approvalsPending: number;
  /** Since the oldest waiting order last changed (its round started, or a vote came in). */
  oldestApprovalPendingSeconds: number;
  /** `in-flight`: an intent with no outcome yet. */
  buyAttemptsByOutcome: Record<string, number>;
  /** Bought products by the provisioning status last recorded (the buy's answer, then the follow-up's reads). */
  productsByProvisioningStatus: Record<string, number>;
  /** Since the oldest order still in PROVISIONING was bought (0: none is). */
  oldestProvisioningSeconds: number;
  /** From the buy to LIVE, of the orders that went LIVE in the last 7 days (null: none did). */
  timeToLiveSeconds: { count: number; p50: number | null; p90: number | null; max: number | null };
}

/** A count per value of one column. */
type Tally<K extends string> = Array<Record<K, string> & { n: number }>;

export function createOrderStatisticsReads(sql: Sql): OrderStatisticsReads {
  return {
    orderStatistics: async () => {
      const byState = await sql<Tally<'status'>>`SELECT status, count(*)::int AS n FROM orders GROUP BY status`;
      const [pending] = await sql<Array<{ n: number; oldest: number }>>`
        SELECT count(*)::int AS n, coalesce(extract(epoch FROM now() - min(updated_at)), 0)::float8 AS oldest
        FROM orders WHERE status = 'AWAITING_APPROVAL'`;
      const buys = await sql<
        Tally<'outcome'>
      >`SELECT coalesce(outcome, 'in-flight') AS outcome, count(*)::int AS n FROM buy_attempts GROUP BY 1`;
      const products = await sql<Tally<'status'>>`
        SELECT product_provisioning_status AS status, count(*)::int AS n FROM orders
        WHERE product_technical_service_uid IS NOT NULL GROUP BY 1`;
      // A follow-up starts at the order's move to BOUGHT (its event), and ends at the move to LIVE.
      const [provisioning] = await sql<Array<{ oldest: number }>>`
        SELECT coalesce(extract(epoch FROM now() - min(b.at)), 0)::float8 AS oldest
        FROM orders o JOIN order_events b ON b.workflow_id = o.workflow_id AND b.to_status = 'BOUGHT'
          AND b.from_status IS DISTINCT FROM 'BOUGHT'
        WHERE o.status = 'PROVISIONING'`;
      const [toLive] = await sql<Array<{ n: number; p50: number | null; p90: number | null; max: number | null }>>`
        SELECT count(*)::int AS n,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds)::float8 AS p50,
               percentile_cont(0.9) WITHIN GROUP (ORDER BY seconds)::float8 AS p90,
               max(seconds)::float8 AS max
        FROM (SELECT extract(epoch FROM l.at - b.at) AS seconds
              FROM order_events l JOIN order_events b ON b.workflow_id = l.workflow_id AND b.to_status = 'BOUGHT'
                AND b.from_status IS DISTINCT FROM 'BOUGHT'
              WHERE l.to_status = 'LIVE' AND l.from_status IS DISTINCT FROM 'LIVE'
                AND l.at > now() - interval '7 days') AS live`;
      return {
        ordersByState: Object.fromEntries(byState.map((row) => [row.status, row.n])),
        approvalsPending: pending.n,
        oldestApprovalPendingSeconds: pending.oldest,
        buyAttemptsByOutcome: Object.fromEntries(buys.map((row) => [row.outcome, row.n])),
        productsByProvisioningStatus: Object.fromEntries(products.map((row) => [row.status, row.n])),
        oldestProvisioningSeconds: provisioning.oldest,
        timeToLiveSeconds: { count: toLive.n, p50: toLive.p50, p90: toLive.p90, max: toLive.max },
      };
    },
  };
}
