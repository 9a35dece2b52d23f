/**
 * `npm run demo`: against the running `mve-orders dev` (or the engine the environment names), one order the
 * staging policy approves by itself and one that waits for a finance approver, who approves it through the
 * workflow's `approve` update naming the quote shown by `status`. Prints each timeline and what each order
 * cost: history events and bytes, API calls (the simulator's counters), and the auto-approved order's
 * end-to-end time. Exit 0 when both are bought.
 */
import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { createRepository, openDatabase } from '../activities/db/index.js';
import { encryptingDataConverter } from '../codec/index.js';
import { connectionOptions } from '../config/temporal.js';
import { formatMoney, formatTimeline } from '../client/cli/commands/order-view.js';
import { formatTable } from '../client/cli/commands/catalog-table.js';
import { loadClientSettings, type ClientSettings } from '../client/config.js';
import { OrderClient, orderWorkflowId } from '../client/orders/index.js';
import { priceOf } from '../sim/index.js';
import { DEFAULT_APPROVAL_POLICIES } from '../workflows/approval/index.js';
import type { OrderStatusView } from '../workflows/order/messages.js';

const EXAMPLE = new URL('../examples/k09-license-file-firewall.json', import.meta.url);
/** Sydney (market AU) on a 12-month term: the simulator quotes 809.10 and 3236.40 AUD a month. */
const MARKET = 'AU';
const AUTO_SIZE = 'MVE 4/16';
const APPROVAL_SIZE = 'MVE 16/64';
const WAIT_MS = 120_000;

type ApiCalls = Record<string, number>;

interface OrderFigures {
  ticketId: string;
  view: OrderStatusView;
  historyEvents: number;
  historyBytes: number;
  apiCalls: ApiCalls | undefined;
  endToEndMs: number;
}

async function main(): Promise<number> {
  const settings = await loadClientSettings(process.env);
  const connection = await Connection.connect({ ...connectionOptions(settings.temporal, settings.temporal.address), connectTimeout: '5s' });
  try {
    const client = new Client({ connection, namespace: settings.temporal.namespace, dataConverter: encryptingDataConverter(settings.keyring) });
    const orders = new OrderClient({ client, taskQueue: settings.temporal.taskQueue, kindMap: settings.kindMap });
    const simulatorUrl = settings.dev?.api.simulatorUrl;
    const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown>;
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 17);
    const line = DEFAULT_APPROVAL_POLICIES.staging.autoApproveBelow['AUD'];
    const expected = (size: string) => formatMoney(priceOf(size, 12, MARKET).monthlyRate, 'AUD');
    process.stdout.write(
      `Staging auto-approves below ${line === undefined ? '(no AUD line)' : formatMoney(line, 'AUD')} a month. ` +
        `Sydney, 12 months: ${AUTO_SIZE} is quoted ${expected(AUTO_SIZE)}, ${APPROVAL_SIZE} ${expected(APPROVAL_SIZE)}.\n\n`,
    );

    const auto = await runOrder(orders, client, simulatorUrl, { ...example, ticketId: `DEMO-${stamp}-AUTO`, size: AUTO_SIZE }, async () => undefined);
    const approved = await runOrder(orders, client, simulatorUrl, { ...example, ticketId: `DEMO-${stamp}-APPROVAL`, size: APPROVAL_SIZE }, (ticketId) =>
      approveAsFinance(orders, settings, ticketId),
    );

    for (const order of [auto, approved]) {
      process.stdout.write(`\n${order.ticketId}: ${order.view.state}${order.view.quote ? ` at ${formatMoney(order.view.quote.monthlyRate, order.view.quote.currency)} a month` : ''}\n`);
      process.stdout.write(formatTimeline(order.view.timeline));
    }
    process.stdout.write(`\n${figuresTable([auto, approved])}`);
    process.stdout.write(
      `\nEnd to end, the auto-approved order took ${(auto.endToEndMs / 1000).toFixed(2)} s from submit to BOUGHT.\n` +
        (simulatorUrl ? '' : 'API calls were not counted: the API is not the dev simulator.\n'),
    );
    const bothBought = auto.view.state === 'BOUGHT' && approved.view.state === 'BOUGHT';
    process.stdout.write(bothBought ? '\ndemo: both orders BOUGHT\n' : '\ndemo: not every order was bought (see the timelines above)\n');
    return bothBought ? 0 : 1;
  } finally {
    await connection.close();
  }
}

/**
 * Submits one order, lets `decide` act while it waits for approval, and waits for its end. API calls are the
 * simulator's counters before and after, so the orders run one after the other.
 */
async function runOrder(
  orders: OrderClient,
  client: Client,
  simulatorUrl: string | undefined,
  request: Record<string, unknown>,
  decide: (ticketId: string) => Promise<void>,
): Promise<OrderFigures> {
  const ticketId = String(request['ticketId']);
  const callsBefore = simulatorUrl ? await simulatorCalls(simulatorUrl) : undefined;
  const started = performance.now();
  await orders.submit(request);
  process.stdout.write(`submitted ${ticketId} (${request['size']})\n`);
  const first = await waitUntil(orders, ticketId, (view) => view.state === 'AWAITING_APPROVAL' || view.state === 'BOUGHT' || isEnded(view));
  if (first.state === 'AWAITING_APPROVAL') await decide(ticketId);
  const outcome = await orders.result(ticketId);
  const endToEndMs = performance.now() - started;
  const callsAfter = simulatorUrl ? await simulatorCalls(simulatorUrl) : undefined;
  const view = await orders.status(ticketId);
  process.stdout.write(`${ticketId} ended ${outcome.state}: ${outcome.reason}\n`);
  const history = await client.workflow.getHandle(orderWorkflowId(ticketId)).fetchHistory();
  return {
    ticketId,
    view,
    historyEvents: history.events?.length ?? 0,
    historyBytes: protoRoot.temporal.api.history.v1.History.encode(history).finish().length,
    apiCalls: callsBefore && callsAfter ? difference(callsBefore, callsAfter) : undefined,
    endToEndMs,
  };
}

/** The first active approver (from the database) holding one of the tier's roles, voting on the quote `status` shows. */
async function approveAsFinance(orders: OrderClient, settings: ClientSettings, ticketId: string): Promise<void> {
  const view = await orders.status(ticketId);
  const tier = view.approval!.tier;
  const quote = view.quote!;
  if (!settings.databaseUrl) throw new Error('DATABASE_URL is not set: the demo looks up an approver there');
  const sql = await openDatabase(settings.databaseUrl, { maxConnections: 1 });
  const approvers = await createRepository(sql).listApprovers({ activeOnly: true }).finally(() => sql.end());
  const approver = approvers.find((a) => a.id !== view.requestedBy && a.roles.some((role) => tier.roles.includes(role)));
  if (!approver) throw new Error(`no active approver with role ${tier.roles.join(' or ')}: add one with \`mve-orders approvers add\``);
  process.stdout.write(
    `${ticketId} awaits approval (tier "${tier.name}", ${view.approval!.stillNeeded} needed) at ${formatMoney(quote.monthlyRate, quote.currency)}; ` +
      `${approver.id} approves that quote\n`,
  );
  const result = await orders.approve(ticketId, { approverId: approver.id, monthlyRate: quote.monthlyRate, currency: quote.currency, comment: 'approved in the demo' });
  if (result.stillNeeded > 0) {
    throw new Error(`${ticketId} needs ${result.stillNeeded} more distinct approver(s); approve with \`mve-orders approve\` to finish it`);
  }
}

function isEnded(view: OrderStatusView): boolean {
  return ['BOUGHT', 'REJECTED', 'EXPIRED', 'CANCELLED', 'FAILED', 'BUY_UNCERTAIN'].includes(view.state);
}

async function waitUntil(orders: OrderClient, ticketId: string, done: (view: OrderStatusView) => boolean): Promise<OrderStatusView> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const view = await orders.status(ticketId).catch(() => undefined);
    if (view && done(view)) return view;
    if (Date.now() > deadline) throw new Error(`${ticketId} is still ${view?.state ?? 'not started'} after ${WAIT_MS / 1000} s: is the worker running?`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function simulatorCalls(simulatorUrl: string): Promise<ApiCalls> {
  const response = await fetch(`${simulatorUrl}/_sim/state`);
  if (!response.ok) throw new Error(`${simulatorUrl}/_sim/state answered ${response.status}`);
  return ((await response.json()) as { calls: ApiCalls }).calls;
}

function difference(before: ApiCalls, after: ApiCalls): ApiCalls {
  return Object.fromEntries(Object.entries(after).map(([endpoint, count]) => [endpoint, count - (before[endpoint] ?? 0)]));
}

function figuresTable(figures: OrderFigures[]): string {
  const rows = figures.map((order) => {
    const calls = order.apiCalls;
    const total = calls ? Object.values(calls).reduce((sum, count) => sum + count, 0) : undefined;
    const breakdown = calls
      ? Object.entries(calls)
          .filter(([, count]) => count > 0)
          .map(([endpoint, count]) => `${endpoint} ${count}`)
          .join(', ')
      : 'not counted';
    return [order.ticketId, String(order.historyEvents), String(order.historyBytes), total === undefined ? '-' : String(total), breakdown];
  });
  return formatTable(['ORDER', 'HISTORY EVENTS', 'HISTORY BYTES', 'API CALLS', 'BY ENDPOINT'], rows);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
