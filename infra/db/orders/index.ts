import type { Sql } from '../connection.js';
import { createBuyAttempts, type BuyAttempts } from './buys.js';
import { createBudgetCommitments, type BudgetCommitments } from './budget-commitments.js';
import { createCommitmentReads, type CommitmentReads } from './commitments.js';
import { createOrderIntake, type OrderIntake } from './intake.js';
import { createOrderJournal, type OrderJournal } from './journal.js';
import { createOrderPolicies, type OrderPolicies } from './policies.js';
import { createOrderProducts, type OrderProducts } from './products.js';
import { createOrderReads, type OrderReads } from './reads.js';
import { createRenewalReads, type RenewalReads } from './renewals.js';
import { createOrderStatisticsReads, type OrderStatisticsReads } from './statistics.js';
import { createQuotesAndVotes, type QuotesAndVotes } from './votes.js';

export type { TransitionOutcome } from './journal.js';
export type { OrderStatistics } from './statistics.js';
export type {
  CommitmentsQuery,
  CommitmentTotals,
  CommittedOrderRecord,
  CommittedOrdersQuery,
  TeamCommitment,
} from './commitments.js';
export type { BudgetCommitmentRecord, BudgetCommitments, CommitDecision, CommitInput } from './budget-commitments.js';
export type { RenewalRecord, RenewalsQuery } from './renewals.js';

/**
 * What the order workflow records (through its activities) and what ops read.
 *
 * Every write is keyed by the workflow (workflow id + a number the workflow chose), so an activity retry
 * that repeats a committed write changes nothing. The repository never receives secrets: callers
 * redact requests, errors and details before they get here, and nothing here logs.
 */
export type OrdersRepository = OrderIntake &
  OrderJournal &
  QuotesAndVotes &
  BuyAttempts &
  OrderProducts &
  OrderPolicies &
  OrderReads &
  OrderStatisticsReads &
  CommitmentReads &
  BudgetCommitments &
  RenewalReads & {
    /**
     * Runs `work` with this repository on one connection of the pool, reserved for it: the writes it starts together
     * go to PostgreSQL in one round trip and run there in the order they were started, each on its own as usual (an
     * operation that needs a transaction takes another connection for it).
     */
    withOneConnection<T>(work: (orders: OrdersRepository) => Promise<T>): Promise<T>;
  };

/** `pool`: where transactions run (a connection reserved for pipelined writes cannot hold one of its own). */
export function createOrdersRepository(sql: Sql, pool: Sql = sql): OrdersRepository {
  return {
    ...createOrderIntake(sql),
    ...createOrderJournal(sql),
    ...createQuotesAndVotes(sql),
    ...createBuyAttempts(sql),
    ...createOrderProducts(sql),
    ...createOrderPolicies(sql, pool),
    ...createOrderReads(sql, pool),
    ...createOrderStatisticsReads(sql),
    ...createCommitmentReads(sql),
    ...createBudgetCommitments(sql),
    ...createRenewalReads(sql),
    withOneConnection: async (work) => {
      // A pool of one connection sends everything on it, in order, already.
      if (sql.options.max <= 1) return work(createOrdersRepository(sql));
      const reserved = await sql.reserve();
      try {
        return await work(createOrdersRepository(reserved, sql));
      } finally {
        reserved.release();
      }
    },
  };
}
