/**
 * What the outage tests do with orders, through the cluster's round-robin client as the real callers would: the
 * ticket system submits, fiona approves, ops read and resolve; each call patient (retried on another server, or after
 * Retry-After). And what every outage test checks at the end: nothing lost, nothing bought twice, every vote counted,
 * every error clear.
 */
import type { ExecutionContext } from 'ava';
import { FINAL_STATES, type OrderState } from '../../domain/lifecycle/index.js';
import type { ApiOrder, OrderHistory } from '../../client/http-client/index.js';
import { json } from '../helpers/json.js';
import { topologyRequest, type Cluster } from './cluster.js';
import { refusalOf, type Answer } from './round-robin.js';

/** 809.10 AUD a month in Sydney: below the default staging policy's 3000 AUD, so approved by itself. */
export const AUTO_APPROVED = 'MVE 4/16';
/** 3236.40 AUD a month: the `team` tier, one vote of a finance approver (fiona). */
export const ONE_VOTE = 'MVE 16/64';

export interface PlannedOrder {
  ticketId: string;
  size: typeof AUTO_APPROVED | typeof ONE_VOTE;
}

export const needsVote = (order: PlannedOrder) => order.size === ONE_VOTE;

/** The ticket system submits; 201 (new) or 200 (the same ticket again, after an attempt whose answer was lost). */
export async function submit(cluster: Cluster, order: PlannedOrder): Promise<Answer> {
  const answer = await cluster.http.patient('POST', '/api/v1/orders', {
    as: 'ticket-bot',
    body: topologyRequest(order.ticketId, { size: order.size }),
  });
  if (answer.status !== 201 && answer.status !== 200)
    throw new Error(`submitting ${order.ticketId}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

/** Reads the order (as ops) until `accept` holds, patiently, every half second; fails after `deadlineMs`. */
export async function readUntil(
  cluster: Cluster,
  ticketId: string,
  accept: (order: ApiOrder) => boolean,
  what: string,
  deadlineMs = 120_000,
): Promise<ApiOrder> {
  const giveUpAt = Date.now() + deadlineMs;
  let last = 'no answer';
  for (;;) {
    const answer = await cluster.http.patient('GET', `/api/v1/orders/${ticketId}`, { as: 'olga' }, deadlineMs);
    const order = answer.status === 200 ? json<ApiOrder>(answer) : undefined;
    if (order && accept(order)) return order;
    last = order ? order.state : `${answer.status} ${JSON.stringify(answer.body)}`;
    if (Date.now() > giveUpAt)
      throw new Error(`${ticketId} did not become ${what} within ${deadlineMs / 1000} s (last: ${last})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export const inState = (state: OrderState) => (order: { state: OrderState }) => order.state === state;
export const ended = (order: { state: OrderState }) => FINAL_STATES.has(order.state);

/** The quote fiona is shown once the order waits for her. */
export async function quoteToApprove(
  cluster: Cluster,
  ticketId: string,
): Promise<{ monthlyRate: number; currency: string }> {
  const order = await readUntil(cluster, ticketId, inState('AWAITING_APPROVAL'), 'AWAITING_APPROVAL');
  if (!order.quote) throw new Error(`${ticketId} awaits approval without a quote`);
  return { monthlyRate: order.quote.monthlyRate, currency: order.quote.currency };
}

/**
 * fiona approves the quote, patiently. 409 ALREADY_VOTED is her vote too: an attempt whose answer was lost (a server
 * killed, a connection cut) had counted it.
 */
export async function approve(
  cluster: Cluster,
  ticketId: string,
  quote: { monthlyRate: number; currency: string },
): Promise<Answer> {
  const answer = await cluster.http.patient('POST', `/api/v1/orders/${ticketId}/approve`, {
    as: 'fiona',
    body: { ...quote, comment: 'within budget' },
  });
  if (answer.status !== 200 && refusalOf(answer).code !== 'ALREADY_VOTED')
    throw new Error(`fiona's vote on ${ticketId}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

/** A 503 as the API must give it when `dependency` does not answer: clear, with Retry-After, no stack. */
export function assertUnavailable(t: ExecutionContext, answer: Answer, dependency: 'PostgreSQL' | 'Temporal'): void {
  const where = `server ${answer.server}: ${JSON.stringify(answer.body)}`;
  t.is(answer.status, 503, where);
  const { code, message } = refusalOf(answer);
  t.is(code, 'SERVICE_UNAVAILABLE', where);
  t.regex(message ?? '', new RegExp(`^${dependency} does not answer`), where);
  t.regex(answer.headers.get('retry-after') ?? '', /^[1-9]\d*$/, where);
}

/** What `/readyz` answers (client/http/routes/health.ts). */
interface ReadyzBody {
  status: string;
  checks: Record<'postgres' | 'temporal', { ok: boolean; error?: string }>;
}

/** `/readyz` of server `index` says `down` does not answer and the other does. */
export async function assertReadiness(
  t: ExecutionContext,
  cluster: Cluster,
  index: number,
  down: 'postgres' | 'temporal',
): Promise<void> {
  const answer = await cluster.http.call('GET', '/readyz', { server: index });
  const up = down === 'postgres' ? 'temporal' : 'postgres';
  t.is(answer.status, 503, `server ${index} /readyz: ${JSON.stringify(answer.body)}`);
  const { checks } = json<ReadyzBody>(answer);
  t.false(checks[down].ok, `server ${index} /readyz: ${JSON.stringify(answer.body)}`);
  t.true(checks[up].ok, `server ${index} /readyz: ${JSON.stringify(answer.body)}`);
}

/**
 * Every order ended as it should (LIVE, or CANCELLED for those in `cancelled`), with exactly one product at the provider
 * (none when cancelled), the one its record names; fiona's vote recorded on each order that needed one; and every error
 * any client met was clear.
 */
export async function assertNothingLost(
  t: ExecutionContext,
  cluster: Cluster,
  orders: readonly PlannedOrder[],
  cancelled: ReadonlySet<string> = new Set(),
): Promise<void> {
  for (const order of orders) {
    const final = await readUntil(cluster, order.ticketId, ended, 'final');
    const products = cluster.productsFor(order.ticketId);
    if (cancelled.has(order.ticketId)) {
      t.is(final.state, 'CANCELLED', order.ticketId);
      t.is(products.length, 0, `${order.ticketId}: nothing bought`);
      continue;
    }
    t.is(final.state, 'LIVE', `${order.ticketId}: ${JSON.stringify(final.lastError ?? final.timeline?.at(-1))}`);
    t.is(
      products.length,
      1,
      `${order.ticketId}: bought once (${products.map((p) => p.technicalServiceUid).join(', ')})`,
    );
    t.is(final.product?.technicalServiceUid, products[0]?.technicalServiceUid, `${order.ticketId}: the product bought`);
    if (needsVote(order)) {
      const history = await cluster.http.patient('GET', `/api/v1/orders/${order.ticketId}/history?events=false`, {
        as: 'olga',
      });
      const { votes } = json<OrderHistory>(history);
      t.true(
        votes.some((vote) => vote.approverId === 'fiona' && vote.decision === 'approve'),
        `${order.ticketId}: fiona's vote recorded (${JSON.stringify(votes)})`,
      );
      t.deepEqual(
        final.approval?.votes.map((vote) => vote.approverId),
        ['fiona'],
        `${order.ticketId}: fiona's vote counted once`,
      );
    }
  }
  t.deepEqual(cluster.http.problems, [], 'every error a client met was clear');
}

/**
 * The activities of an order that Temporal ran more than once, `recordJournal ×3`, from its history events (read
 * through the API as ops): an activity task's started event carries its attempt, and its scheduled event its type.
 */
export async function retriedActivities(cluster: Cluster, ticketId: string): Promise<string[]> {
  const history = await cluster.http.patient('GET', `/api/v1/orders/${ticketId}/history`, { as: 'olga' });
  const events = json<OrderHistory>(history).events as ActivityEvent[];
  const typeOf = new Map(
    events.flatMap((event) => {
      const scheduled = event.activityTaskScheduledEventAttributes;
      return scheduled ? [[event.eventId, scheduled.activityType.name] as const] : [];
    }),
  );
  return events.flatMap(({ activityTaskStartedEventAttributes: started }) =>
    started && started.attempt > 1 ? [`${typeOf.get(started.scheduledEventId)} ×${started.attempt}`] : [],
  );
}

/** The fields of a Temporal history event (proto3 JSON, ids as text) that tell an activity's type and attempt. */
interface ActivityEvent {
  eventId: string;
  activityTaskScheduledEventAttributes?: { activityType: { name: string } };
  activityTaskStartedEventAttributes?: { scheduledEventId: string; attempt: number };
}
