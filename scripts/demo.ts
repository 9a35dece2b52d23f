/**
 * `npm run demo`: against the running `mve-orders dev`, through its HTTP API as its seeded users. alice submits
 * one order the staging policy approves by itself and one that waits for a finance approver; fiona finds the
 * second in her inbox and approves the quote the API shows her. A third, charged to the lab team, would take it over
 * its monthly budget (dev's policy: tooling/dev/approval-policy.json), so it needs the policy's over-budget tier:
 * fiona and dave approve it. Prints each timeline and what each order cost: history events and their size, API calls
 * (the simulator's counters), and the auto-approved order's end-to-end time. The workers follow each bought MVE until
 * the simulator reports it LIVE (about 8 s). Exit 0 when all three are bought and LIVE (or BOUGHT, where the workers
 * do not follow products) and the third was escalated by its budget.
 */
import { readFileSync } from 'node:fs';
import { ApiCallError, OrdersApiClient, type ApiOrder } from '../client/http-client/index.js';
import { formatMoney, formatPolicy, formatTimeline } from '../client/cli/commands/order-view.js';
import { formatTable } from '../client/cli/commands/table.js';
import { API_URL_VARIABLE, loadClientSettings, type ClientSettings } from '../client/cli/settings.js';
import { priceOf } from '../tooling/sim/index.js';
import { defaultApprovalPolicies } from '../domain/approval/index.js';

const EXAMPLE = new URL('../examples/k09-license-file-firewall.json', import.meta.url);
/** Sydney (market AU) on a 12-month term: the simulator quotes 809.10 and 3236.40 AUD a month. */
const MARKET = 'AU';
const AUTO_SIZE = 'MVE 4/16';
const APPROVAL_SIZE = 'MVE 16/64';
const REQUESTER = 'alice';
const APPROVER = 'fiona';
const SECOND_APPROVER = 'dave';
/** dev's policy's team with a monthly budget (3,000 AUD) that the approval-sized order passes, and the tier it then needs. */
const BUDGETED_TEAM = 'lab';
const OVER_BUDGET_TIER = 'finance';
const WAIT_MS = 120_000;
const ENDS = ['LIVE', 'PROVISIONING_FAILED', 'PROVISIONING_STALLED', 'REJECTED', 'EXPIRED', 'CANCELLED', 'FAILED'];

/** Where the demo stops waiting: an end, an uncertain buy (for ops), or BOUGHT with no follow-up of its product. */
function settled(order: ApiOrder): boolean {
  if (order.state === 'BOUGHT') return order.provisioning === undefined;
  return order.state === 'BUY_UNCERTAIN' || ENDS.includes(order.state);
}

/** Bought, and LIVE where the workers follow products. */
function done(order: ApiOrder): boolean {
  return order.state === 'LIVE' || (order.state === 'BOUGHT' && order.provisioning === undefined);
}

/** Seconds from the order's first timeline line to its first line in `state`, if it has one. */
function secondsTo(order: ApiOrder, state: string): string | undefined {
  const timeline = order.timeline ?? [];
  const first = timeline[0];
  const reached = timeline.find((line) => line.state === state);
  return first && reached ? ((Date.parse(reached.at) - Date.parse(first.at)) / 1000).toFixed(2) : undefined;
}

type ApiCalls = Record<string, number>;

interface OrderFigures {
  ticketId: string;
  order: ApiOrder;
  historyEvents: number;
  historyBytes: number;
  apiCalls: ApiCalls | undefined;
}

async function main(): Promise<number> {
  if (process.env[API_URL_VARIABLE]?.trim()) {
    throw new Error(
      `the demo acts as the seeded users of \`mve-orders dev\` (${REQUESTER}, ${APPROVER}), whose tokens only the dev's dev.json holds; unset ${API_URL_VARIABLE} and run it while \`npm start\` is up`,
    );
  }
  const requesterSettings = await loadClientSettings(process.env, { as: REQUESTER });
  const alice = client(requesterSettings);
  const fiona = client(await loadClientSettings(process.env, { as: APPROVER }));
  const dave = client(await loadClientSettings(process.env, { as: SECOND_APPROVER }));
  try {
    const simulatorUrl = requesterSettings.dev?.api.simulatorUrl;
    const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown>;
    // alice submits for herself: who she is comes from her token, so the request names no requester.
    delete example['requestedBy'];
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 17);
    const line = defaultApprovalPolicies().staging.autoApproveBelow['AUD'];
    const expected = (size: string) => formatMoney(priceOf(size, 12, MARKET).monthlyRate, 'AUD');
    process.stdout.write(
      `Through the HTTP API at ${alice.url}, as ${REQUESTER} (requester), ${APPROVER} (finance-approver) and ${SECOND_APPROVER} (finance-director).\n` +
        `The default staging policy auto-approves below ${line === undefined ? '(no AUD line)' : formatMoney(line, 'AUD')} a month. ` +
        `Sydney, 12 months: ${AUTO_SIZE} is quoted ${expected(AUTO_SIZE)}, ${APPROVAL_SIZE} ${expected(APPROVAL_SIZE)}.\n\n`,
    );

    const people = { alice, fiona, dave, simulatorUrl };
    const orders = await runOrders(people, example, stamp);
    return report(orders, simulatorUrl);
  } finally {
    for (const api of [alice, fiona, dave]) api.close();
  }
}

interface DemoPeople {
  alice: OrdersApiClient;
  fiona: OrdersApiClient;
  dave: OrdersApiClient;
  simulatorUrl: string | undefined;
}

/** The three orders, one after the other: auto-approved, approved by fiona, and escalated by its team's budget. */
async function runOrders(people: DemoPeople, example: Record<string, unknown>, stamp: string): Promise<OrderFigures[]> {
  const auto = await runOrder(
    people.alice,
    people.simulatorUrl,
    { ...example, ticketId: `DEMO-${stamp}-AUTO`, size: AUTO_SIZE },
    () => Promise.resolve(),
  );
  const approved = await runOrder(
    people.alice,
    people.simulatorUrl,
    { ...example, ticketId: `DEMO-${stamp}-APPROVAL`, size: APPROVAL_SIZE },
    (ticketId) => approveInTurn([[APPROVER, people.fiona]], ticketId),
  );
  process.stdout.write(
    `\n${REQUESTER} charges the next one to team ${BUDGETED_TEAM}, whose monthly budget it passes:\n`,
  );
  const overBudget = await runOrder(
    people.alice,
    people.simulatorUrl,
    { ...example, ticketId: `DEMO-${stamp}-BUDGET`, size: APPROVAL_SIZE, costCentre: BUDGETED_TEAM },
    (ticketId) =>
      approveInTurn(
        [
          [APPROVER, people.fiona],
          [SECOND_APPROVER, people.dave],
        ],
        ticketId,
      ),
  );
  return [auto, approved, overBudget];
}

/** Each order's timeline and figures; exit code 0 when all are bought (and LIVE) and the third was escalated. */
function report(orders: OrderFigures[], simulatorUrl: string | undefined): number {
  const [auto, , overBudget] = orders;
  for (const { ticketId, order } of orders) {
    const price = order.quote ? ` at ${formatMoney(order.quote.monthlyRate, order.quote.currency)} a month` : '';
    process.stdout.write(
      `\n${ticketId}: ${order.state}${price} (policy ${formatPolicy(order.policy)}, submitted by ${order.submittedBy ?? '?'})\n`,
    );
    process.stdout.write(formatTimeline(order.timeline ?? []));
  }
  process.stdout.write(`\n${figuresTable(orders)}`);
  process.stdout.write(
    'History events count the whole history: up to BOUGHT an auto-approved order is 16 (npm run bench:orders); ' +
      "following the product to LIVE adds the workers' reads of it.\n",
  );
  const toLive = secondsTo(auto.order, 'LIVE');
  process.stdout.write(
    `\nEnd to end, the auto-approved order took ${secondsTo(auto.order, 'BOUGHT') ?? '?'} s from submit to BOUGHT` +
      (toLive ? `, and the provider had it LIVE ${toLive} s after the submit.\n` : '.\n') +
      (simulatorUrl ? '' : 'API calls were not counted: the API is not the dev simulator.\n'),
  );
  const escalated = escalatedByBudget(overBudget.ticketId, overBudget.order);
  if (!escalated)
    process.stdout.write(
      `\ndemo: ${overBudget.ticketId} was not sent to the "${OVER_BUDGET_TIER}" tier for its budget: is dev running its own policy (tooling/dev/approval-policy.json)?\n`,
    );
  const all = orders.every(({ order }) => done(order));
  process.stdout.write(
    !all
      ? '\ndemo: not every order was bought and live (see the timelines above)\n'
      : `\ndemo: all three orders ${auto.order.state}${escalated ? ", one escalated by its team's budget" : ''}\n`,
  );
  return all && escalated ? 0 : 1;
}

function client(settings: ClientSettings): OrdersApiClient {
  return new OrdersApiClient({
    url: settings.apiUrl,
    ...(settings.token ? { token: settings.token } : {}),
    unreachableHint: 'the mve-orders dev that wrote dev.json does not answer there; restart it with `npm start`',
  });
}

/**
 * alice submits one order, `decide` acts while it waits for approval, and the demo waits for its end. API
 * calls are the simulator's counters before and after, so the orders run one after the other.
 */
async function runOrder(
  requester: OrdersApiClient,
  simulatorUrl: string | undefined,
  request: Record<string, unknown>,
  decide: (ticketId: string) => Promise<void>,
): Promise<OrderFigures> {
  const ticketId = String(request['ticketId']);
  const callsBefore = simulatorUrl ? await simulatorCalls(simulatorUrl) : undefined;
  const submitted = await requester.submit(request);
  process.stdout.write(
    `${REQUESTER} submitted ${ticketId} (${String(request['size'])}): ${submitted.created ? 'a new order' : 'the existing order'}\n`,
  );
  const first = await waitUntil(requester, ticketId, (order) => order.state === 'AWAITING_APPROVAL' || settled(order));
  if (first.state === 'AWAITING_APPROVAL') await decide(ticketId);
  const order = await waitUntil(requester, ticketId, settled);
  const callsAfter = simulatorUrl ? await simulatorCalls(simulatorUrl) : undefined;
  const last = order.timeline?.at(-1);
  process.stdout.write(`${ticketId} ended ${order.state}${last?.reason ? `: ${last.reason}` : ''}\n`);
  const history = await requester.history(ticketId, { events: true });
  return {
    ticketId,
    order,
    historyEvents: history.events.length,
    historyBytes: Buffer.byteLength(JSON.stringify(history.events)),
    apiCalls: callsBefore && callsAfter ? difference(callsBefore, callsAfter) : undefined,
  };
}

/** The tier each order showed in an approver's inbox. */
const tiersSeen = new Map<string, string>();

/** Whether the order waited for the over-budget tier, its timeline saying why: its team's budget. */
function escalatedByBudget(ticketId: string, order: ApiOrder): boolean {
  const waited = (order.timeline ?? []).find((line) => line.state === 'AWAITING_APPROVAL');
  return tiersSeen.get(ticketId) === OVER_BUDGET_TIER && /budget/.test(waited?.reason ?? '');
}

/** Each approver in turn finds the order in their inbox and approves the quote the API shows them. */
async function approveInTurn(approvers: Array<[string, OrdersApiClient]>, ticketId: string): Promise<void> {
  for (const [index, [name, approver]] of approvers.entries()) {
    await findInInbox(name, approver, ticketId);
    const order = await approver.get(ticketId);
    const quote = order.quote!;
    process.stdout.write(`${name} approves ${ticketId} at ${formatMoney(quote.monthlyRate, quote.currency)}\n`);
    const result = await approver.approve(ticketId, {
      monthlyRate: quote.monthlyRate,
      currency: quote.currency,
      comment: 'approved in the demo',
    });
    if (result.stillNeeded === 0) return;
    if (index === approvers.length - 1) {
      throw new Error(
        `${ticketId} needs ${result.stillNeeded} more distinct approver(s); approve with \`mve-orders approve ${ticketId} --as <approver>\` to finish it`,
      );
    }
  }
}

/** Waits until the order is in `name`'s inbox, and says how it shows there. */
async function findInInbox(name: string, approver: OrdersApiClient, ticketId: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const { approvals } = await approver.approvals();
    const waiting = approvals.find((item) => item.ticketId === ticketId);
    if (waiting) {
      tiersSeen.set(ticketId, waiting.tier);
      const quote =
        waiting.monthlyRate !== null && waiting.currency !== null
          ? formatMoney(waiting.monthlyRate, waiting.currency)
          : 'no quote';
      process.stdout.write(
        `${name}'s inbox: ${ticketId} (tier "${waiting.tier}", ${waiting.stillNeeded} of ${waiting.approvalsNeeded} approval(s) needed) at ${quote}\n`,
      );
      return;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${ticketId} did not reach ${name}'s inbox within ${WAIT_MS / 1000} s: does ${name} hold a role of its tier?`,
      );
    await sleep(200);
  }
}

async function waitUntil(
  api: OrdersApiClient,
  ticketId: string,
  done: (order: ApiOrder) => boolean,
): Promise<ApiOrder> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    let order: ApiOrder | undefined;
    try {
      order = await api.get(ticketId);
    } catch (error) {
      // 409 NOT_STARTED: submitted, and no worker has taken its first step yet.
      if (!(error instanceof ApiCallError && (error.status === 404 || error.code === 'NOT_STARTED'))) throw error;
    }
    if (order && done(order)) return order;
    if (Date.now() > deadline)
      throw new Error(
        `${ticketId} is still ${order?.state ?? 'not started'} after ${WAIT_MS / 1000} s: is the worker running?`,
      );
    await sleep(200);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function simulatorCalls(simulatorUrl: string): Promise<ApiCalls> {
  const response = await fetch(`${simulatorUrl}/_sim/state`);
  if (!response.ok) throw new Error(`${simulatorUrl}/_sim/state answered ${response.status}`);
  return ((await response.json()) as { calls: ApiCalls }).calls;
}

function difference(before: ApiCalls, after: ApiCalls): ApiCalls {
  return Object.fromEntries(
    Object.entries(after).map(([endpoint, count]) => [endpoint, count - (before[endpoint] ?? 0)]),
  );
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
    return [
      order.ticketId,
      String(order.historyEvents),
      String(order.historyBytes),
      total === undefined ? '-' : String(total),
      breakdown,
    ];
  });
  // History as the API gives it: proto3 JSON, payloads withheld (alice is not ops), so its size is the JSON's.
  return formatTable(['ORDER', 'HISTORY EVENTS', 'HISTORY JSON BYTES', 'API CALLS', 'BY ENDPOINT'], rows);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
