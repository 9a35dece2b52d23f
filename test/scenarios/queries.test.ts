/**
 * What lists orders answers the same on the real Temporal server as on the devserver: the API's list (its filters
 * and pages, as each role sees it, and the status lists the console's ops view reads), the approvers' inboxes, and
 * Temporal's visibility queries over the order's search attributes (what ops and the Web UI list orders by), with
 * their counts and the refusals of queries neither server takes. The same five orders are placed on both servers,
 * one after the other.
 */
import anyTest, { type TestFn } from 'ava';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { ORDER_STATUS, TICKET_ID } from '../../workflows/order/search-attributes.js';
import type { ApiEngine, TestUser } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import {
  assertEveryHistoryReplays,
  onBoth,
  settledIn,
  submit,
  useBothServers,
  type BothServers,
} from './fixtures/both-servers.js';

const test = anyTest as TestFn<unknown>;
const pg = usePostgres(test);
const servers = useBothServers(test, pg);

const TEAM = { monthlyRate: 1618.2, currency: 'AUD' };
const FINANCE = { monthlyRate: 3236.4, currency: 'AUD' };

test.serial('the same five orders reach the same states on both servers', async (t) => {
  await onBoth(servers.engines, async (api) => {
    await submit(t, api, 'Q-AUTO', { size: 'MVE 4/16' });
    await settledIn(api, 'Q-AUTO', 'BOUGHT');
    await submit(t, api, 'Q-TEAM', { size: 'MVE 8/32' });
    await settledIn(api, 'Q-TEAM', 'AWAITING_APPROVAL');
    await submit(t, api, 'Q-FINANCE', { size: 'MVE 16/64', requestedBy: 'pat' }, 'ticket-bot');
    await settledIn(api, 'Q-FINANCE', 'AWAITING_APPROVAL');
    await api.call('POST', '/api/v1/orders/Q-FINANCE/approve', { as: 'fiona', body: FINANCE });
    await settledIn(api, 'Q-FINANCE', 'AWAITING_APPROVAL');
    await submit(t, api, 'Q-CANCEL', { size: 'MVE 8/32' });
    await settledIn(api, 'Q-CANCEL', 'AWAITING_APPROVAL');
    await api.call('POST', '/api/v1/orders/Q-CANCEL/cancel', { as: 'alice', body: { reason: 'not needed' } });
    await settledIn(api, 'Q-CANCEL', 'CANCELLED');
    await submit(t, api, 'Q-REJECT', { size: 'MVE 8/32', requestedBy: 'quinn' }, 'ticket-bot');
    await settledIn(api, 'Q-REJECT', 'AWAITING_APPROVAL');
    await api.call('POST', '/api/v1/orders/Q-REJECT/reject', { as: 'fiona', body: { ...TEAM, reason: 'no budget' } });
    await settledIn(api, 'Q-REJECT', 'REJECTED');
  });
});

/**
 * What each server answers, compared once they agree (the real server's visibility store catches up with a moment's
 * delay): a difference that outlasts that is a difference.
 */
async function sameAnswers<T>(
  t: { deepEqual(actual: T, expected: T, message?: string): void },
  engines: BothServers,
  ask: (api: ApiEngine) => Promise<T>,
  what: string,
): Promise<void> {
  let last: Record<'real' | 'devserver', T> | undefined;
  await waitFor(
    async () => {
      last = await onBoth(engines, ask);
      return JSON.stringify(last.real) === JSON.stringify(last.devserver) ? true : undefined;
    },
    15_000,
    what,
  ).catch(() => undefined);
  t.deepEqual(last!.devserver, last!.real, `${what}: the devserver answers otherwise than the real server`);
}

/** An order of a list as both servers must show it: what it is, not its ids or times. */
const listed = (order: Record<string, any>) => ({
  ticketId: order.ticketId,
  state: order.state,
  environment: order.environment,
  requestedBy: order.requestedBy,
  submittedBy: order.submittedBy,
  quote: order.quote && { monthlyRate: order.quote.monthlyRate, currency: order.quote.currency },
  bought: Boolean(order.product),
});

/** Every page of GET /api/v1/orders with `query`, as `user` sees it. */
async function allPages(api: ApiEngine, user: TestUser, query: string) {
  const pages: Array<Array<ReturnType<typeof listed>>> = [];
  let cursor: string | undefined;
  do {
    const separator = query ? '&' : '';
    const path = `/api/v1/orders?${query}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await api.call('GET', path, { as: user });
    if (response.status !== 200) return { status: response.status, code: response.body?.error?.code };
    pages.push(response.body.orders.map(listed));
    cursor = response.body.nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

test.serial('the API lists the same orders, filtered and paged, for each role', async (t) => {
  const lists: Array<[TestUser, string]> = [
    ['olga', ''],
    ['olga', 'limit=2'],
    ['olga', 'status=AWAITING_APPROVAL'],
    ['olga', 'status=BUY_UNCERTAIN&limit=100'], // the console's ops view: what needs attention
    ['olga', 'status=FAILED&limit=10'],
    ['olga', 'requester=pat'],
    ['olga', 'environment=staging&limit=3'],
    ['fiona', 'status=REJECTED'],
    ['alice', ''],
    ['ticket-bot', 'limit=1'],
    ['olga', 'cursor=not-a-cursor'],
  ];
  for (const [user, query] of lists)
    await sameAnswers(t, servers.engines, (api) => allPages(api, user, query), `${user}: GET /api/v1/orders?${query}`);
});

test.serial('the approvers see the same inboxes', async (t) => {
  for (const user of ['fiona', 'dave', 'erin', 'aliceApprover'] as TestUser[]) {
    await sameAnswers(
      t,
      servers.engines,
      async (api) => {
        const response = await api.call('GET', '/api/v1/approvals', { as: user });
        const items = (response.body.approvals ?? []) as Array<Record<string, unknown>>;
        return {
          status: response.status,
          approvals: items.map(({ orderId: _id, waitingSince: _since, deadline: _deadline, ...item }) => item),
        };
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

test.serial(
  'visibility queries over the search attributes list and count the same orders, in the same order',
  async (t) => {
    const orders = "WorkflowType = 'orderWorkflow'";
    const queries = [
      orders,
      `${orders} AND OrderStatus = 'AWAITING_APPROVAL'`,
      `${orders} AND TicketId = 'Q-FINANCE'`,
      `${orders} AND TicketId IN ('Q-AUTO', 'Q-CANCEL')`,
      `${orders} AND MonthlyRate > 1000 AND MonthlyRate < 2000`,
      `${orders} AND MonthlyRate >= 3236.4`,
      `${orders} AND Environment = 'staging' AND ExecutionStatus = 'Completed'`,
      `${orders} AND ExecutionStatus = 'Running'`,
      `${orders} AND OrderStatus != 'BOUGHT' AND ExecutionStatus != 'Running'`,
      `${orders} AND OrderStatus STARTS_WITH 'AWAIT'`,
      `${orders} AND (OrderStatus = 'REJECTED' OR OrderStatus = 'CANCELLED')`,
      `${orders} AND NoSuchAttribute = 'x'`,
      `${orders} ORDER BY StartTime DESC`,
      `${orders} AND MonthlyRate = 'not a number'`,
    ];
    for (const query of queries)
      await sameAnswers(t, servers.engines, (api) => visibility(api, query), `visibility: ${query}`);
  },
);

test.serial('every history of this file replays on the current workflow code', async (t) => {
  await assertEveryHistoryReplays(t, servers.engines, 5);
});
