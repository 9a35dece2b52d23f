import type { OrderRecord, OrderStatistics } from '../../../infra/db/index.js';
import type { OrderState } from '../../../domain/lifecycle/index.js';
import type { ApiOrder } from '../order-view.js';
import { OrderedCache } from '../ordered.js';
import type { Principal } from '../principal.js';
import type { RecoveryResult } from '../recovery.js';
import { cancelOrder, type CancelOutcome } from './cancel.js';
import {
  commitmentFigures,
  readCommitments,
  type CommitmentFigure,
  type Commitments,
  type CommitmentsFilter,
  type CommitmentsPage,
} from './commitments.js';
import { orderDecisionFigures } from './decision-figures.js';
import { orderHistory } from './history.js';
import { awaitingApproval, listOrders, type AwaitingDecision, type OrderFilters, type OrderPage } from './list.js';
import type { OrderServiceParts } from './parts.js';
import { readOrder, type ReadPurpose } from './read.js';
import { resolveBuy, type BuyResolution } from './resolve-buy.js';
import { recover } from './recover.js';
import { submitOrder, type Submission } from './submit.js';
import { vote, type Decision, type NamedQuote, type VoteOutcome } from './vote.js';

/**
 * Every action on orders, for the HTTP API and whatever else serves people: the only code above the order client that
 * talks to Temporal and the records about orders. Each action takes the authenticated principal first, applies the
 * access rules (../access.ts) and refuses with the typed errors of ../refusals.ts (and the order client's
 * OrderRefusedError, the intake's and recovery's own), never with an answer of some protocol. The actions that reach
 * an order's workflow take `sending`, called right before the message leaves.
 */
export class OrderService {
  private readonly ordered = new OrderedCache();

  constructor(private readonly parts: OrderServiceParts) {}

  /**
   * The order `name` (an order id, or a ticket id) as the caller may see it, and to read, with what it asked for:
   * NoSuchOrder when they may not.
   */
  async read(principal: Principal, name: string, purpose: ReadPurpose = 'read'): Promise<ApiOrder> {
    const order = await readOrder(this.parts, principal, name, purpose);
    if (purpose === 'act') return order;
    const { repository } = this.parts;
    const [ordered, team] = await Promise.all([
      order.ordered ?? this.ordered.of(order.workflowId, () => repository.getOrderRequest(order.workflowId)),
      order.team !== undefined ? order.team : repository.getOrderTeam(order.workflowId),
    ]);
    const read = { ...order, ...(ordered ? { ordered } : {}), team: team ?? null };
    const budget = await orderDecisionFigures(this.parts, read);
    return budget === undefined ? read : { ...read, budget };
  }

  list(principal: Principal, filters: OrderFilters, page: OrderPage): Promise<OrderRecord[]> {
    return listOrders(this.parts, principal, filters, page);
  }

  awaitingApproval(principal: Principal, limit: number): Promise<AwaitingDecision[]> {
    return awaitingApproval(this.parts, principal, limit);
  }

  /** The order's timeline from the records and, with `includeEvents`, its workflow's history (./history.ts). */
  history(principal: Principal, name: string, includeEvents: boolean) {
    return orderHistory(this.parts, principal, name, includeEvents);
  }

  submit(principal: Principal, request: Record<string, unknown>): Promise<Submission> {
    return submitOrder(this.parts, principal, request);
  }

  vote(
    principal: Principal,
    name: string,
    decision: Decision,
    quote: NamedQuote,
    sending: () => void,
  ): Promise<VoteOutcome> {
    return vote(this.parts, principal, name, decision, quote, sending);
  }

  cancel(principal: Principal, name: string, reason: string, sending: () => void): Promise<CancelOutcome> {
    return cancelOrder(this.parts, principal, name, reason, sending);
  }

  resolveBuy(principal: Principal, name: string, resolution: BuyResolution, sending: () => void): Promise<OrderState> {
    return resolveBuy(this.parts, principal, name, resolution, sending);
  }

  recover(principal: Principal, name: string, reason: string): Promise<RecoveryResult & { orderId: string }> {
    return recover(this.parts, principal, name, reason);
  }

  /** Runs `work` with every call it makes to Temporal bounded by `deadline` (epoch ms): a request's time limit. */
  withDeadline<T>(deadline: number, work: () => Promise<T>): Promise<T> {
    return this.parts.temporal.withDeadline(deadline, work);
  }

  /** What an environment's teams have committed to in a month, per team and currency, with the orders behind it. */
  commitments(principal: Principal, filter: CommitmentsFilter, page: CommitmentsPage): Promise<Commitments> {
    return readCommitments(this.parts, principal, filter, page);
  }

  /** Each environment's run-rate and approved-this-month per team and currency, for metrics: never an order. */
  commitmentFigures(): Promise<CommitmentFigure[]> {
    return commitmentFigures(this.parts);
  }

  /** Order figures from the records, for metrics: counts, never an order's content. */
  statistics(): Promise<OrderStatistics> {
    return this.parts.repository.orderStatistics();
  }

  /** Reads answered from the records because this server was at its bound on reads at Temporal, since it started. */
  get readsPassedOver(): number {
    return this.parts.liveReads.passedOver;
  }
}
