/**
 * The orders the HTTP bench reads and approves, placed through the API itself: some bought at once, the others left
 * waiting for fiona's approval; and the plain HTTP calls that place, list and approve them.
 */
import { z } from 'zod';
import { readExampleOrder } from '../intake.js';
import type { HttpStack } from './stack.js';

/** Orders read by the GET runs (each kind) and orders approved by the approve run. */
export const READ_ORDERS = 20;
export const APPROVE_ORDERS = 50;
const SETTLE_LIMIT_MS = 60_000;

/** One request with a bearer token; its JSON answer, or an error naming the request and the answer. */
export type Call = (method: string, urlPath: string, bearer: string, body?: unknown) => Promise<unknown>;

export function apiCaller(apiUrl: string): Call {
  return async (method, urlPath, bearer, body) => {
    const response = await fetch(`${apiUrl}${urlPath}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${urlPath}: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as unknown;
  };
}

const ordersPage = z.object({ orders: z.array(z.object({ ticketId: z.string() })) });
const approvalsPage = z.object({
  approvals: z.array(
    z.object({ ticketId: z.string(), monthlyRate: z.number().nullable(), currency: z.string().nullable() }),
  ),
});
export type PendingApproval = z.output<typeof approvalsPage>['approvals'][number];

/** fiona's inbox: every order waiting for her vote, with its quote. */
export async function approvalsOf(call: Call, tokens: HttpStack['tokens']): Promise<PendingApproval[]> {
  return approvalsPage.parse(await call('GET', '/api/v1/approvals?limit=1000', tokens.fiona)).approvals;
}

export interface BenchOrders {
  /** Tickets of orders bought at once, and of orders waiting for one approval. */
  bought: string[];
  awaiting: string[];
  /** From the first submit until every order had settled. */
  settleSeconds: number;
}

/**
 * Sydney, 12 months (the simulator's prices): MVE 4/16 is 809.10 AUD, under the default staging policy's
 * auto-approval line (3000 AUD); MVE 16/64 is 3236.40 AUD, which needs one finance approver.
 */
export async function placeOrders(call: Call, tokens: HttpStack['tokens']): Promise<BenchOrders> {
  const example = await readExampleOrder();
  const run = `${process.pid}`;
  const bought = Array.from({ length: READ_ORDERS }, (_, i) => `BENCH-HTTP-${run}-BOUGHT-${i}`);
  const awaiting = Array.from({ length: READ_ORDERS + APPROVE_ORDERS }, (_, i) => `BENCH-HTTP-${run}-WAIT-${i}`);
  const submit = (ticketId: string, size: string) =>
    call('POST', '/api/v1/orders', tokens.alice, { ...example, ticketId, requestedBy: 'alice', size });
  const started = performance.now();
  for (let i = 0; i < Math.max(bought.length, awaiting.length); i += 10) {
    await Promise.all([
      ...bought.slice(i, i + 10).map((ticketId) => submit(ticketId, 'MVE 4/16')),
      ...awaiting.slice(i, i + 10).map((ticketId) => submit(ticketId, 'MVE 16/64')),
    ]);
  }
  await waitUntilSettled(call, tokens, bought, awaiting);
  return { bought, awaiting, settleSeconds: Math.round((performance.now() - started) / 100) / 10 };
}

/** Until every order has settled: the bought ones BOUGHT, the others waiting for fiona. */
async function waitUntilSettled(
  call: Call,
  tokens: HttpStack['tokens'],
  bought: string[],
  awaiting: string[],
): Promise<void> {
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  for (;;) {
    const [boughtPage, waiting] = await Promise.all([
      call('GET', `/api/v1/orders?status=BOUGHT&limit=500`, tokens.alice).then((page) => ordersPage.parse(page)),
      approvalsOf(call, tokens),
    ]);
    const boughtCount = boughtPage.orders.filter((order) => bought.includes(order.ticketId)).length;
    const waitingCount = waiting.filter((item) => awaiting.includes(item.ticketId)).length;
    if (boughtCount === bought.length && waitingCount === awaiting.length) return;
    if (Date.now() > deadline)
      throw new Error(
        `orders did not settle within 60 s: ${boughtCount}/${bought.length} bought, ${waitingCount}/${awaiting.length} awaiting approval`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
