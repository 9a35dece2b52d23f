/**
 * The walk-through's orders that change course, against `npm start` and its simulator: a buy whose outcome was lost,
 * settled by ops from the provider's product (and `status` then says what is true), and every order's timeline in
 * the order things happened.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DevState } from './npm-start.js';
import { shell, sleep, StepFailure, type StepResult } from './shell.js';

const SETTLE_MS = 120_000;

type DevUser = DevState['users'][number];

export interface Order {
  orderId: string;
  ticketId: string;
  state: string;
  timeline?: Array<{ seq: number; at: string; state: string }>;
}

export function userWith(state: DevState, role: string): DevUser {
  const user = state.users.find((candidate) => candidate.roles.includes(role));
  if (!user) throw new StepFailure(`dev.json names no user with the ${role} role`);
  return user;
}

export async function call(url: string, init: RequestInit & { token?: string } = {}): Promise<unknown> {
  const { token, ...rest } = init;
  const answer = await fetch(url, {
    ...rest,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  const text = await answer.text();
  if (!answer.ok) throw new StepFailure(`${init.method ?? 'GET'} ${url} answered ${answer.status}`, text);
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** The README's example request, as the clone has it. */
export function exampleRequest(clone: string): Record<string, unknown> {
  const file = path.join(clone, 'examples/k09-license-file-firewall.json');
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

export function simulator(state: DevState): string {
  const url = state.api.simulatorUrl;
  if (!url) throw new StepFailure('dev.json names no simulator (api.simulatorUrl)');
  return url;
}

/** Polls the order as `user` until `done` holds; a failure names the last state seen. */
export async function orderWhen(state: DevState, user: DevUser, name: string, done: (order: Order) => boolean) {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const order = (await call(`${state.http.url}/api/v1/orders/${encodeURIComponent(name)}`, {
      token: user.token,
    })) as Order;
    if (done(order)) return order;
    if (Date.now() > deadline) throw new StepFailure(`${name} stayed ${order.state} for ${SETTLE_MS / 1000} s`);
    await sleep(500);
  }
}

/**
 * A buy the provider made but whose answer was lost, while the provider's product cannot be read: BUY_UNCERTAIN.
 * Ops find the product in the provider's portal (in dev, the simulator's /_sim/state), settle it with
 * `resolve-buy --created`, and `status` then tells a bought order, with no "unknown" left in it.
 */
export async function settledUncertainBuy(state: DevState, clone: string): Promise<StepResult> {
  const sim = simulator(state);
  const ticketBot = userWith(state, 'ticket-system');
  const ops = userWith(state, 'ops');
  const ticketId = 'WALK-UNCERTAIN';
  const productName = `${ticketId} firewall`;
  const example = exampleRequest(clone);
  await call(`${sim}/_sim/product-read`, { method: 'PUT', body: JSON.stringify({ mode: 'not-found' }) });
  await call(`${sim}/_sim/faults`, {
    method: 'POST',
    body: JSON.stringify({ kind: 'apply-then-drop', endpoint: 'buy' }),
  });
  try {
    await call(`${state.http.url}/api/v1/orders`, {
      method: 'POST',
      token: ticketBot.token,
      body: JSON.stringify({ ...example, ticketId, productName, size: 'MVE 4/16' }),
    });
    await orderWhen(state, ops, ticketId, (order) => order.state === 'BUY_UNCERTAIN');
  } finally {
    await call(`${sim}/_sim/product-read`, { method: 'PUT', body: JSON.stringify({ mode: 'offered' }) });
    await call(`${sim}/_sim/faults`, { method: 'DELETE' });
  }
  const { products } = (await call(`${sim}/_sim/state`)) as {
    products: Array<{ serviceName?: string; technicalServiceUid: string }>;
  };
  const product = products.find((candidate) => candidate.serviceName?.startsWith(`${productName} [`));
  if (!product) throw new StepFailure(`the simulator shows no product named ${productName} […]`);
  const as = `--as ${ops.id}`;
  await shell(`npx mve-orders resolve-buy ${ticketId} --created ${product.technicalServiceUid} ${as}`, clone);
  await orderWhen(state, ops, ticketId, (order) => order.state === 'LIVE');
  const status = await shell(`npx mve-orders status ${ticketId} ${as}`, clone);
  // The timeline keeps what was true then (BUY_UNCERTAIN: the outcome was unknown); what is above it is now.
  const now = status.split(/^timeline$/m)[0];
  const stale = [/unknown/i, /0 s after the buy/].filter((words) => words.test(now));
  if (stale.length > 0) throw new StepFailure(`status of a settled, LIVE order still says ${stale.join(', ')}`, status);
  return { note: `settled as ${product.technicalServiceUid}, LIVE; status says so`, output: status };
}

/** Every order ops can see: its timeline, by sequence, never goes back in time (`status --json`'s timeline too). */
export async function timelinesInOrder(state: DevState, clone: string): Promise<StepResult> {
  const ops = userWith(state, 'ops');
  const { orders } = (await call(`${state.http.url}/api/v1/orders?limit=500`, { token: ops.token })) as {
    orders: Order[];
  };
  const backwards: string[] = [];
  for (const { orderId } of orders) {
    const order = JSON.parse(await shell(`npx mve-orders status ${orderId} --as ${ops.id} --json`, clone)) as Order;
    const timeline = [...(order.timeline ?? [])].sort((a, b) => a.seq - b.seq);
    timeline.forEach((entry, i) => {
      const before = timeline[i - 1];
      if (before && Date.parse(entry.at) < Date.parse(before.at))
        backwards.push(`${order.ticketId}: ${entry.state} at ${entry.at}, after ${before.state} at ${before.at}`);
    });
  }
  if (backwards.length > 0) throw new StepFailure('timelines run backwards', backwards.join('\n'));
  return { note: `${orders.length} orders` };
}

/** `npm run bench:cli`: the CLI's start-up against its targets (it exits 1 when one is missed). */
export async function cliStartBench(clone: string): Promise<StepResult> {
  const output = await shell('npm run -s bench:cli -- --json', clone, 600_000);
  // Its progress lines (stderr) come first; the JSON document is the rest, from its opening brace's line.
  const start = /^\{$/m.exec(output);
  if (!start) throw new StepFailure('bench:cli --json printed no JSON document', output);
  const figures = JSON.parse(output.slice(start.index)) as unknown;
  return { note: summary(figures), output };
}

/** The bench's figures with a target, as `--help 105 ms (< 300 ms)`. */
function summary(figures: unknown): string {
  const { figures: measured = [] } = figures as {
    figures?: Array<{ name: string; medianMs: number; targetMs: number | null }>;
  };
  return measured
    .filter((figure) => figure.targetMs !== null)
    .map((figure) => `${figure.name} ${figure.medianMs} ms (< ${figure.targetMs} ms)`)
    .join(', ');
}
