/**
 * What lists orders on Temporal's own server: the API's list (its filters and pages, as each role sees it, and the
 * status lists the console's ops view reads), the approvers' inboxes, and Temporal's visibility queries over the
 * order's search attributes (what ops and the Web UI list orders by), with their counts and the refusals of queries
 * the server does not take. Five orders are placed one after the other, and each list must name the ones it selects.
 */
import { isDeepStrictEqual } from 'node:util';
import anyTest, { type TestFn } from 'ava';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { ORDER_STATUS, TICKET_ID } from '../../workflows/order/search-attributes.js';
import type { OrderList, OrderListItem, PendingApproval } from '../../client/http-client/index.js';
import type { ApiEngine, TestUser } from '../helpers/api.js';
import { json, type ErrorBody } from '../helpers/json.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { assertEveryHistoryReplays, settledIn, submit, useApiEngine } from './fixtures/scenario-engine.js';

const test = anyTest as TestFn<unknown>;
const pg = usePostgres(test);
const engine = useApiEngine(test, pg);

const AUTO = { monthlyRate: 809.1, currency: 'AUD' }; // MVE 4/16: below the auto-approval line
const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance-approver
const FINANCE = { monthlyRate: 3236.4, currency: 'AUD' }; // MVE 16/64: two approvers

test.serial('five orders reach their states: bought, waiting, half approved, cancelled, rejected', async (t) => {
  const { api } = engine;
  await submit(t, api, 'Q-AUTO', { size: 'MVE 4/16' });
  await settledIn(api, 'Q-AUTO', 'BOUGHT');
  await submit(t, api, 'Q-TEAM', { size: 'MVE 8/32' });
  await settledIn(api, 'Q-TEAM', 'AWAITING_APPROVAL');
  await submit(t, api, 'Q-FINANCE', { size: 'MVE 16/64', requestedBy: 'pat' }, 'ticket-bot');
  await settledIn(api, 'Q-FINANCE', 'AWAITING_APPROVAL');
  await api.call('POST', '/api/v1/orders/Q-FINANCE/approve', { as: 'fiona', body: FINANCE });
  const halfApproved = await settledIn(api, 'Q-FINANCE', 'AWAITING_APPROVAL');
  t.like(halfApproved.approval, { stillNeeded: 1 });
  await submit(t, api, 'Q-CANCEL', { size: 'MVE 8/32' });
  await settledIn(api, 'Q-CANCEL', 'AWAITING_APPROVAL');
  await api.call('POST', '/api/v1/orders/Q-CANCEL/cancel', { as: 'alice', body: { reason: 'not needed' } });
  await settledIn(api, 'Q-CANCEL', 'CANCELLED');
  await submit(t, api, 'Q-REJECT', { size: 'MVE 8/32', requestedBy: 'quinn' }, 'ticket-bot');
  await settledIn(api, 'Q-REJECT', 'AWAITING_APPROVAL');
  await api.call('POST', '/api/v1/orders/Q-REJECT/reject', { as: 'fiona', body: { ...TEAM, reason: 'no budget' } });
  await settledIn(api, 'Q-REJECT', 'REJECTED');
});

/** An order of a list as the API shows it: what it is, not its ids or times. */
const listed = (order: OrderListItem) => ({
  ticketId: order.ticketId,
  state: order.state,
  environment: order.environment,
  requestedBy: order.requestedBy,
  submittedBy: order.submittedBy,
  quote: order.quote && { monthlyRate: order.quote.monthlyRate, currency: order.quote.currency },
  bought: Boolean(order.product),
});

/** Every page of GET /api/v1/orders with `query`, as `user` sees it; or its refusal. */
async function allPages(api: ApiEngine, user: TestUser, query: string) {
  const pages: Array<Array<ReturnType<typeof listed>>> = [];
  let cursor: string | undefined;
  do {
    const separator = query ? '&' : '';
    const path = `/api/v1/orders?${query}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await api.call('GET', path, { as: user });
    if (response.status !== 200)
      return { status: response.status, code: json<Partial<ErrorBody>>(response).error?.code };
    const page = json<OrderList>(response);
    pages.push(page.orders.map(listed));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

/** The orders as every list shows them, newest first. */
const ORDERS = {
  'Q-REJECT': { state: 'REJECTED', requestedBy: 'quinn', submittedBy: 'ticket-bot', quote: TEAM, bought: false },
  'Q-CANCEL': { state: 'CANCELLED', requestedBy: 'alice', submittedBy: 'alice', quote: TEAM, bought: false },
  'Q-FINANCE': {
    state: 'AWAITING_APPROVAL',
    requestedBy: 'pat',
    submittedBy: 'ticket-bot',
    quote: FINANCE,
    bought: false,
  },
  'Q-TEAM': { state: 'AWAITING_APPROVAL', requestedBy: 'alice', submittedBy: 'alice', quote: TEAM, bought: false },
  'Q-AUTO': { state: 'BOUGHT', requestedBy: 'alice', submittedBy: 'alice', quote: AUTO, bought: true },
} as const;
type Ticket = keyof typeof ORDERS;
const shown = (ticketId: Ticket) => ({ ticketId, environment: 'staging', ...ORDERS[ticketId] });

test.serial('the API lists the orders, filtered and paged, as each role may see them', async (t) => {
  const { api } = engine;
  const lists: Array<[TestUser, string, Ticket[][] | { status: number; code: string }]> = [
    ['olga', '', [['Q-REJECT', 'Q-CANCEL', 'Q-FINANCE', 'Q-TEAM', 'Q-AUTO']]],
    ['olga', 'limit=2', [['Q-REJECT', 'Q-CANCEL'], ['Q-FINANCE', 'Q-TEAM'], ['Q-AUTO']]],
    ['olga', 'status=AWAITING_APPROVAL', [['Q-FINANCE', 'Q-TEAM']]],
    ['olga', 'status=BUY_UNCERTAIN&limit=100', [[]]], // the console's ops view: what needs attention
    ['olga', 'status=FAILED&limit=10', [[]]],
    ['olga', 'requester=pat', [['Q-FINANCE']]],
    [
      'olga',
      'environment=staging&limit=3',
      [
        ['Q-REJECT', 'Q-CANCEL', 'Q-FINANCE'],
        ['Q-TEAM', 'Q-AUTO'],
      ],
    ],
    ['fiona', 'status=REJECTED', [['Q-REJECT']]],
    ['alice', '', [['Q-CANCEL', 'Q-TEAM', 'Q-AUTO']]],
    ['ticket-bot', 'limit=1', [['Q-REJECT'], ['Q-FINANCE']]],
    ['olga', 'cursor=not-a-cursor', { status: 400, code: 'INVALID_INPUT' }],
  ];
  for (const [user, query, expected] of lists)
    t.deepEqual(
      await allPages(api, user, query),
      Array.isArray(expected) ? expected.map((page) => page.map(shown)) : expected,
      `${user}: GET /api/v1/orders?${query}`,
    );
});

/** What `submit` asks for (the example's request, named after its ticket), in the inbox's words. */
const ordered = (ticketId: string, size: string) => ({
  productName: `${ticketId} firewall`,
  size,
  term: 12,
  place: 'Sydney, AU',
  image: 'Fortinet FortiGate-VM latest',
  vnics: ['WAN', 'LAN 1'],
});

/** How the inboxes show the orders waiting for a vote: what they are and how far their round is, not ids or times. */
const WAITING = {
  'Q-TEAM': {
    requestedBy: 'alice',
    ordered: ordered('Q-TEAM', 'MVE 8/32'),
    ...TEAM,
    // The scenarios' policy charges orders to no team, so the inbox shows no team's figures.
    team: null,
    budget: null,
    tier: 'team',
    approvalsNeeded: 1,
    approvalsGiven: 0,
    stillNeeded: 1,
  },
  'Q-FINANCE': {
    requestedBy: 'pat',
    ordered: ordered('Q-FINANCE', 'MVE 16/64'),
    ...FINANCE,
    // The scenarios' policy charges orders to no team, so the inbox shows no team's figures.
    team: null,
    budget: null,
    tier: 'finance',
    approvalsNeeded: 2,
    approvalsGiven: 1,
    stillNeeded: 1,
  },
} as const;

test.serial("each approver's inbox holds the orders waiting for their vote", async (t) => {
  const { api } = engine;
  const inboxes: Array<[TestUser, Array<keyof typeof WAITING>]> = [
    ['fiona', ['Q-TEAM']], // she has voted on Q-FINANCE
    ['dave', ['Q-FINANCE']], // Q-TEAM's tier is the finance-approvers'
    ['erin', []],
    ['aliceApprover', ['Q-FINANCE']], // never her own Q-TEAM
  ];
  for (const [user, expected] of inboxes) {
    const response = await api.call('GET', '/api/v1/approvals', { as: user });
    // what varies from run to run (ids, times) is left out of the comparison
    const items = (json<{ approvals?: PendingApproval[] }>(response).approvals ?? []).map((approval) => {
      const item: Partial<PendingApproval> = { ...approval };
      delete item.orderId;
      delete item.waitingSince;
      delete item.deadline;
      return item;
    });
    t.deepEqual(
      {
        status: response.status,
        approvals: items,
      },
      {
        status: 200,
        approvals: expected.map((ticketId) => ({ ticketId, environment: 'staging', ...WAITING[ticketId] })),
      },
      `${user}: GET /api/v1/approvals`,
    );
  }
});

/** The orders a visibility query lists, in the order listed, with their status; or the refusal's gRPC code. */
async function visibility(api: ApiEngine, query: string) {
  try {
    const found: WorkflowExecutionInfo[] = [];
    for await (const execution of api.client.workflow.list({ query })) found.push(execution);
    const { count } = await api.client.workflow.count(query);
    return {
      count,
      orders: found.map((execution) => ({
        ticketId: execution.typedSearchAttributes.get(TICKET_ID),
        orderStatus: execution.typedSearchAttributes.get(ORDER_STATUS),
        status: execution.status.name,
      })),
    };
  } catch (error) {
    const code = (error as { cause?: { code?: number } }).cause?.code;
    return { refused: code === undefined ? String(error) : GrpcStatus[code] };
  }
}

/**
 * Asks until the answer is `expected`, then asserts it: the server's visibility store catches up with a moment's
 * delay, and an answer that is still otherwise after that is wrong.
 */
async function answers<T>(
  t: { deepEqual(actual: T, expected: T, message?: string): void },
  ask: () => Promise<T>,
  expected: T,
  what: string,
): Promise<void> {
  let last: T | undefined;
  await waitFor(
    async () => {
      last = await ask();
      return isDeepStrictEqual(last, expected) ? true : undefined;
    },
    30_000,
    what,
  ).catch(() => undefined);
  t.deepEqual(last as T, expected, what);
}

/** How a visibility query lists an order: its search attributes and whether its run goes on. */
const VISIBLE = {
  'Q-REJECT': { orderStatus: 'REJECTED', status: 'COMPLETED' },
  'Q-CANCEL': { orderStatus: 'CANCELLED', status: 'COMPLETED' },
  'Q-FINANCE': { orderStatus: 'AWAITING_APPROVAL', status: 'RUNNING' },
  'Q-TEAM': { orderStatus: 'AWAITING_APPROVAL', status: 'RUNNING' },
  'Q-AUTO': { orderStatus: 'BOUGHT', status: 'COMPLETED' },
} as const;
const listedBy = (tickets: Ticket[]) => ({
  count: tickets.length,
  orders: tickets.map((ticketId) => ({ ticketId, ...VISIBLE[ticketId] })),
});

test.serial('visibility queries over the search attributes list and count the orders they select', async (t) => {
  const { api } = engine;
  const orders = "WorkflowType = 'orderWorkflow'";
  // Listed in the order of the dev server's SQL visibility store: running runs first, the newest first, then closed
  // ones, the last closed first.
  const queries: Array<[string, Ticket[] | { refused: string }]> = [
    [orders, ['Q-FINANCE', 'Q-TEAM', 'Q-REJECT', 'Q-CANCEL', 'Q-AUTO']],
    [`${orders} AND OrderStatus = 'AWAITING_APPROVAL'`, ['Q-FINANCE', 'Q-TEAM']],
    [`${orders} AND TicketId = 'Q-FINANCE'`, ['Q-FINANCE']],
    [`${orders} AND TicketId IN ('Q-AUTO', 'Q-CANCEL')`, ['Q-CANCEL', 'Q-AUTO']],
    [`${orders} AND MonthlyRate > 1000 AND MonthlyRate < 2000`, ['Q-TEAM', 'Q-REJECT', 'Q-CANCEL']],
    [`${orders} AND MonthlyRate >= 3236.4`, ['Q-FINANCE']],
    [`${orders} AND Environment = 'staging' AND ExecutionStatus = 'Completed'`, ['Q-REJECT', 'Q-CANCEL', 'Q-AUTO']],
    [`${orders} AND ExecutionStatus = 'Running'`, ['Q-FINANCE', 'Q-TEAM']],
    [`${orders} AND OrderStatus != 'BOUGHT' AND ExecutionStatus != 'Running'`, ['Q-REJECT', 'Q-CANCEL']],
    [`${orders} AND OrderStatus STARTS_WITH 'AWAIT'`, ['Q-FINANCE', 'Q-TEAM']],
    [`${orders} AND (OrderStatus = 'REJECTED' OR OrderStatus = 'CANCELLED')`, ['Q-REJECT', 'Q-CANCEL']],
    [`${orders} AND NoSuchAttribute = 'x'`, { refused: 'INVALID_ARGUMENT' }],
    [`${orders} ORDER BY StartTime DESC`, { refused: 'INVALID_ARGUMENT' }], // its own order only
    [`${orders} AND MonthlyRate = 'not a number'`, { refused: 'INVALID_ARGUMENT' }],
  ];
  for (const [query, expected] of queries)
    await answers(
      t,
      () => visibility(api, query),
      Array.isArray(expected) ? listedBy(expected) : expected,
      `visibility: ${query}`,
    );
});

test.serial('every history of this file replays on the current workflow code', async (t) => {
  await assertEveryHistoryReplays(t, engine.api, 5);
});
