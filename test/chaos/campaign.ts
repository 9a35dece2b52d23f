/**
 * A seeded, time-bounded, randomised fault campaign against the real engine (`npm run chaos`):
 *
 *   node --import tsx test/chaos/campaign.ts [--seed 42] [--seconds 60] [--orders 24]
 *
 * The durable devserver and two order workers run in child processes (test/orders/fixtures/restart-env.ts),
 * the API simulator, the intake and the bots in this one. For `--seconds` it submits `--orders` orders at
 * random moments through the intake (mixed sizes: auto-approved, one approver, two approvers), approves them
 * with a bot through the signed path (OrderClient with the action keys), arms simulator faults on validate and
 * buy (5xx, 429, latency, apply-then-drop), SIGKILLs workers (some with a buy in flight) and starts others,
 * and SIGKILLs the devserver once and starts it again on the same data. An ops bot resolves every BUY_UNCERTAIN
 * order from what the simulator (the provider) shows it created. Then faults stop, the devserver's clock is
 * moved past the timeouts of activities that dead workers held, and the campaign waits for every order to
 * settle. Finally every ticket is re-sent through the intake with the same body.
 *
 * It prints orders, bought, double buys, lost orders and orders left unsettled, and exits 1 unless the last
 * three are 0. See docs/chaos.md.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import {} from '../../client/orders/index.js';
import type { OrderStatusView } from '../../workflows/order/messages.js';
import { FINAL_STATES, type OrderState } from '../../domain/order-states.js';
import { orderOf, sydneyRequest, workflowOf } from '../helpers/orders.js';
import { usePostgres, type TestDatabase } from '../helpers/postgres.js';
import { productNameFor, startRestartEnv, withTimeout, type RestartEnv } from '../orders/fixtures/restart-env.js';
import type { FaultInput } from '../../sim/index.js';

export interface ChaosOptions {
  seed: number;
  /** How long faults, kills and submissions go on (the drain afterwards is bounded separately). */
  seconds: number;
  orders: number;
  /** A migrated database; by default one is made on an embedded PostgreSQL (or DATABASE_URL). */
  db?: TestDatabase;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Upper bound of the drain after the campaign, in seconds (default 150). */
  drainSeconds?: number;
}

export interface ChaosReport {
  seed: number;
  seconds: number;
  orders: number;
  sizes: Record<string, number>;
  bought: number;
  finalStates: Partial<Record<OrderState, number>>;
  faults: Record<string, number>;
  workerKills: number;
  buyInFlightKills: number;
  devserverKills: number;
  uncertainResolved: { created: number; notCreated: number };
  votes: number;
  serverTimeSkips: number;
  resent: number;
  startedAgain: number;
  doubleBuys: number;
  lost: number;
  unsettled: number;
  problems: string[];
  elapsedSeconds: number;
}

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SIZES = [
  { size: 'MVE 4/16', weight: 0.5, approvals: 0 },
  { size: 'MVE 8/32', weight: 0.35, approvals: 1 },
  { size: 'MVE 16/64', weight: 0.15, approvals: 2 },
] as const;
/** Who the approval bot votes as, in order: one approver for the team tier, both for the finance tier. */
const BOT_APPROVERS = ['fiona', 'dave'] as const;
/** Ops wait this long before saying "not created" (longer than any latency armed on buy). */
const OPS_SETTLE_MS = 12_000;
const MAX_BUY_LATENCY_MS = 7_000;

interface ChaosOrder {
  ticketId: string;
  size: string;
  body: Record<string, unknown>;
  submitAt: number;
  submitted: boolean;
  status?: OrderStatusView;
  settled: boolean;
  uncertainSince?: number;
  acting: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const random = prng(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const between = (low: number, high: number) => Math.round(low + random() * (high - low));

  let cleanup: Array<() => Promise<void>> = [];
  let db = options.db;
  if (!db) {
    // The tests' PostgreSQL helper outside ava: its after-hook is ours to run.
    const pg = usePostgres({ after: { always: (fn: () => Promise<void>) => cleanup.push(fn) } } as never);
    db = await pg.database();
  }
  const env = await startRestartEnv(db, { log: (line) => log(`  ${line}`) });
  const report: ChaosReport = {
    seed: options.seed,
    seconds: options.seconds,
    orders: options.orders,
    sizes: {},
    bought: 0,
    finalStates: {},
    faults: {},
    workerKills: 0,
    buyInFlightKills: 0,
    devserverKills: 0,
    uncertainResolved: { created: 0, notCreated: 0 },
    votes: 0,
    serverTimeSkips: 0,
    resent: 0,
    startedAgain: 0,
    doubleBuys: 0,
    lost: 0,
    unsettled: 0,
    problems: [],
    elapsedSeconds: 0,
  };
  try {
    await runCampaign(env, options, report, { random, pick, between, log });
  } finally {
    await env.stop().catch((error: unknown) => log(`stopping: ${String(error)}`));
    for (const fn of cleanup) await fn().catch(() => undefined);
    cleanup = [];
  }
  report.elapsedSeconds = Math.round((Date.now() - started) / 1000);
  return report;
}

async function runCampaign(
  env: RestartEnv,
  options: ChaosOptions,
  report: ChaosReport,
  tools: {
    random: () => number;
    pick: <T>(items: readonly T[]) => T;
    between: (low: number, high: number) => number;
    log: (line: string) => void;
  },
): Promise<void> {
  const { random, pick, between, log } = tools;
  const { sim } = env;
  const campaignMs = options.seconds * 1000;
  const t0 = Date.now();
  const elapsed = () => Date.now() - t0;

  const orders: ChaosOrder[] = [];
  for (let i = 0; i < options.orders; i++) {
    let roll = random();
    const size = SIZES.find((entry) => (roll -= entry.weight) < 0)?.size ?? SIZES[0].size;
    const ticketId = `CHAOS-${options.seed}-${String(i + 1).padStart(3, '0')}`;
    report.sizes[size] = (report.sizes[size] ?? 0) + 1;
    orders.push({
      ticketId,
      size,
      body: sydneyRequest(ticketId, { size, productName: productNameFor(ticketId) }),
      submitAt: Math.round(random() * campaignMs * 0.6),
      submitted: false,
      settled: false,
      acting: false,
    });
  }

  // ---- processes ----
  let chaosOn = true;
  let devserverDown = false;
  let restartsPending = 0;
  const ensureWorkers = async () => {
    while (!devserverDown && env.workers.size + restartsPending < 2) {
      restartsPending++;
      try {
        await env.startWorker();
      } catch (error) {
        log(`a worker did not start: ${String(error).split('\n')[0]}`);
        await sleep(1_000);
      } finally {
        restartsPending--;
      }
    }
  };
  await ensureWorkers();

  // ---- bots: submitter, approver, ops; all through the real paths ----
  const submitDue = async () => {
    await Promise.all(
      orders
        .filter((order) => !order.submitted && order.submitAt <= elapsed())
        .map(async (order) => {
          try {
            await withTimeout(
              env.intake.submit(order.body, 'alice').then(() => {
                order.submitted = true;
              }),
              10_000,
            );
          } catch (error) {
            log(`${order.ticketId}: intake failed, will re-send (${String(error).split('\n')[0]})`);
          }
        }),
    );
  };

  const act = (order: ChaosOrder, action: () => Promise<unknown>) => {
    if (order.acting) return;
    order.acting = true;
    void withTimeout(action(), 15_000)
      .catch((error: unknown) => log(`${order.ticketId}: ${String(error).split('\n')[0]}`))
      .finally(() => {
        order.acting = false;
      });
  };

  const pollAndAct = async () => {
    await Promise.all(
      orders
        .filter((order) => order.submitted && !order.settled)
        .map(async (order) => {
          const status = await env.status(order.ticketId, 3_000);
          if (!status) return;
          order.status = status;
          if (FINAL_STATES.has(status.state)) {
            order.settled = true;
            return;
          }
          if (status.state !== 'BUY_UNCERTAIN') order.uncertainSince = undefined;
          if (status.state === 'AWAITING_APPROVAL' && status.approval && status.quote) {
            const voted = new Set(status.approval.votes.map((vote) => vote.approverId));
            const approver = BOT_APPROVERS.slice(0, status.approval.tier.approvals).find((id) => !voted.has(id));
            if (approver) {
              act(order, async () => {
                await env.orders.approve(orderOf(order.ticketId), {
                  approverId: approver,
                  monthlyRate: status.quote!.monthlyRate,
                  currency: status.quote!.currency,
                  comment: 'chaos bot',
                });
                report.votes++;
              });
            }
          }
          if (status.state === 'BUY_UNCERTAIN') {
            order.uncertainSince ??= Date.now();
            const [product] = env.productsFor(order.ticketId);
            if (product) {
              act(order, async () => {
                await env.orders.resolveBuy(orderOf(order.ticketId), {
                  actor: 'olga',
                  attempt: status.buyAttempts,
                  outcome: 'created',
                  technicalServiceUid: product.technicalServiceUid,
                  note: 'found at the provider',
                });
                report.uncertainResolved.created++;
              });
            } else if (Date.now() - order.uncertainSince >= OPS_SETTLE_MS) {
              act(order, async () => {
                await env.orders.resolveBuy(orderOf(order.ticketId), {
                  actor: 'olga',
                  attempt: status.buyAttempts,
                  outcome: 'not-created',
                  note: `the provider shows no product named "${productNameFor(order.ticketId)}"`,
                });
                report.uncertainResolved.notCreated++;
              });
            }
          }
        }),
    );
  };

  let botsOn = true;
  const bots = (async () => {
    while (botsOn) {
      await submitDue().catch(() => undefined);
      await pollAndAct().catch(() => undefined);
      await sleep(500);
    }
  })();

  // ---- chaos: faults, worker kills, one devserver kill ----
  const armFault = () => {
    const endpoint = pick(['validate', 'buy'] as const);
    const kind = pick(['error', 'rate-limit', 'latency', 'apply-then-drop'] as const);
    let fault: FaultInput;
    if (kind === 'error') fault = { kind, endpoint, status: pick([500, 502, 503]) };
    else if (kind === 'rate-limit') fault = { kind, endpoint, retryAfterSeconds: 1 };
    else if (kind === 'latency')
      fault = { kind, endpoint, ms: between(300, endpoint === 'buy' ? MAX_BUY_LATENCY_MS : 4_000) };
    else fault = { kind, endpoint };
    sim.injectFault(fault);
    const name = `${endpoint} ${kind === 'error' ? '5xx' : kind === 'rate-limit' ? '429' : kind}`;
    report.faults[name] = (report.faults[name] ?? 0) + 1;
  };

  const killAWorker = async (reason: string) => {
    const live = [...env.workers].filter((worker) => worker.alive());
    if (!live.length) return;
    const victim = pick(live);
    log(`t+${Math.round(elapsed() / 1000)}s kill worker ${victim.child.pid} (${reason})`);
    await victim.kill();
    report.workerKills++;
    await sleep(between(300, 2_000));
  };

  const devserverKillAt = campaignMs * (0.35 + random() * 0.2);
  const buyInFlightAt = campaignMs * (0.15 + random() * 0.5);
  let nextFaultAt = between(500, 2_000);
  let nextKillAt = between(4_000, 10_000);
  let devserverKilled = false;
  let buyInFlightArmed = false;
  let buyInFlightDone = false;
  let buysAtArm = 0;
  while (elapsed() < campaignMs) {
    const now = elapsed();
    if (now >= nextFaultAt) {
      armFault();
      nextFaultAt = now + between(500, 2_500);
    }
    if (!buyInFlightArmed && now >= buyInFlightAt) {
      // A buy held at the provider, and every worker killed while it is outstanding.
      buyInFlightArmed = true;
      buysAtArm = sim.state().calls.buy;
      sim.injectFault({ kind: 'latency', endpoint: 'buy', ms: 4_000 });
      report.faults['buy latency'] = (report.faults['buy latency'] ?? 0) + 1;
    }
    if (
      buyInFlightArmed &&
      !buyInFlightDone &&
      sim.state().calls.buy > buysAtArm &&
      !sim.state().faults.some((fault) => fault.kind === 'latency' && fault.endpoint === 'buy' && fault.ms === 4_000)
    ) {
      buyInFlightDone = true;
      await sleep(300);
      log(`t+${Math.round(elapsed() / 1000)}s kill every worker: a buy is in flight`);
      const live = [...env.workers];
      await Promise.all(live.map((worker) => worker.kill()));
      report.workerKills += live.length;
      report.buyInFlightKills++;
    }
    if (!devserverKilled && now >= devserverKillAt) {
      devserverKilled = true;
      devserverDown = true;
      log(`t+${Math.round(now / 1000)}s kill the devserver`);
      await env.killDevserver();
      report.devserverKills++;
      await sleep(between(500, 2_000));
      await env.startDevserver();
      devserverDown = false;
      log(`t+${Math.round(elapsed() / 1000)}s devserver back`);
    }
    if (now >= nextKillAt) {
      await killAWorker('random');
      nextKillAt = elapsed() + between(5_000, 12_000);
    }
    // workers that died of the devserver's absence are replaced as well
    void ensureWorkers();
    await sleep(250);
  }
  chaosOn = false;
  sim.clearFaults();
  log(`t+${Math.round(elapsed() / 1000)}s campaign over: faults cleared; draining`);

  // ---- drain: every order must settle ----
  const drainUntil = Date.now() + (options.drainSeconds ?? 150) * 1000;
  let lastProgress = Date.now();
  let unsettledBefore = Infinity;
  while (Date.now() < drainUntil) {
    await ensureWorkers();
    const open = orders.filter((order) => !order.settled);
    if (!open.length) break;
    if (open.length < unsettledBefore) {
      unsettledBefore = open.length;
      lastProgress = Date.now();
    }
    // Activities held by killed workers time out only after their start-to-close (up to 3 min): move the
    // devserver's clock past them rather than wait. Approval deadlines (72 h) are far beyond.
    const stuck = open.some(
      (order) =>
        order.submitted && order.status?.state !== 'BUY_UNCERTAIN' && order.status?.state !== 'AWAITING_APPROVAL',
    );
    if (stuck && Date.now() - lastProgress > 12_000 && report.serverTimeSkips < 3) {
      log(
        `skipping 4 minutes of server time (${open.length} open: ${open.map((order) => `${order.ticketId} ${order.status?.state ?? '?'}`).join(', ')})`,
      );
      report.serverTimeSkips++;
      await env.skipServerTime(4 * 60_000).catch((error: unknown) => log(`skip failed: ${String(error)}`));
      lastProgress = Date.now();
    }
    await sleep(1_000);
  }
  botsOn = false;
  await bots;
  void chaosOn;

  // ---- accounting ----
  const problems = report.problems;
  const tickets = new Set(orders.map((order) => order.ticketId));
  const products = sim.state().products;
  for (const product of products) {
    const owner = [...tickets].find((ticketId) => product.serviceName?.startsWith(`${productNameFor(ticketId)} [`));
    if (!owner) problems.push(`product ${product.technicalServiceUid} (${product.serviceName}) belongs to no order`);
  }
  for (const order of orders) {
    const bought = env.productsFor(order.ticketId);
    if (bought.length > 1) {
      report.doubleBuys += bought.length - 1;
      problems.push(`${order.ticketId}: bought ${bought.length} times`);
    }
    const view = order.submitted ? await env.repository.getOrder(workflowOf(order.ticketId)) : null;
    const state = order.status?.state ?? view?.order.status;
    if (!order.submitted || !view || !state) {
      report.lost++;
      problems.push(
        `${order.ticketId}: ${!order.submitted ? 'never accepted by the intake' : 'no record in Postgres'}`,
      );
      continue;
    }
    if (state === 'BOUGHT') report.bought++;
    if (FINAL_STATES.has(state)) report.finalStates[state] = (report.finalStates[state] ?? 0) + 1;
    if (!order.settled || !FINAL_STATES.has(state)) {
      report.unsettled++;
      problems.push(`${order.ticketId}: left in ${state}`);
      continue;
    }
    const recorded = await withTimeout(
      (async () => {
        for (;;) {
          const fresh = await env.repository.getOrder(workflowOf(order.ticketId));
          if (fresh?.order.status === state) return fresh;
          await sleep(200);
        }
      })(),
      15_000,
    );
    if (!recorded) problems.push(`${order.ticketId}: Temporal says ${state}, Postgres ${view.order.status}`);
    if (state === 'BOUGHT') {
      const uid = order.status?.product?.technicalServiceUid ?? recorded?.order.product?.technicalServiceUid;
      if (!bought.some((product) => product.technicalServiceUid === uid)) {
        report.lost++;
        problems.push(`${order.ticketId}: BOUGHT as ${uid ?? '?'}, which the provider does not have`);
      }
    } else if (bought.length) {
      report.lost++;
      problems.push(
        `${order.ticketId}: ${state}, but the provider created ${bought.map((product) => product.technicalServiceUid).join(', ')}`,
      );
    }
  }

  // ---- every ticket again, same body: nothing may start or be bought ----
  const productCount = sim.state().products.length;
  for (const order of orders.filter((entry) => entry.submitted)) {
    report.resent++;
    const again = await env.intake.submit(order.body, 'alice').catch((error: unknown) => {
      problems.push(`${order.ticketId}: re-sent, refused: ${String(error)}`);
      return undefined;
    });
    if (again?.created) {
      report.startedAgain++;
      problems.push(`${order.ticketId}: re-sent and started again`);
    }
  }
  await sleep(2_000);
  const extra = sim.state().products.length - productCount;
  if (extra > 0) {
    report.doubleBuys += extra;
    problems.push(`${extra} product(s) bought after the tickets were re-sent`);
  }
}

export function formatReport(report: ChaosReport): string {
  const list = (record: Record<string, number | undefined>) =>
    Object.entries(record)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ') || 'none';
  return [
    `chaos: seed ${report.seed}, ${report.seconds} s of faults, ${report.orders} orders (${list(report.sizes)}), ${report.elapsedSeconds} s in all`,
    `faults armed: ${list(report.faults)}`,
    `kills: ${report.workerKills} worker(s) (${report.buyInFlightKills} time(s) with a buy in flight), ${report.devserverKills} devserver; server time skipped ${report.serverTimeSkips} time(s)`,
    `votes by the approval bot: ${report.votes}; uncertain buys resolved by ops: ${report.uncertainResolved.created} created, ${report.uncertainResolved.notCreated} not created`,
    `final states: ${list(report.finalStates)}`,
    `re-sent tickets: ${report.resent}, started again: ${report.startedAgain}`,
    ...report.problems.map((problem) => `  problem: ${problem}`),
    `orders:                ${report.orders}`,
    `bought:                ${report.bought}`,
    `double buys:           ${report.doubleBuys}`,
    `lost orders:           ${report.lost}`,
    `orders left unsettled: ${report.unsettled}`,
  ].join('\n');
}

export function campaignPassed(report: ChaosReport): boolean {
  return report.doubleBuys === 0 && report.lost === 0 && report.unsettled === 0 && report.startedAgain === 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '42' },
      seconds: { type: 'string', default: '60' },
      orders: { type: 'string', default: '24' },
      quiet: { type: 'boolean', default: false },
    },
  });
  const numberOf = (name: string, text: string, min: number) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) {
      console.error(`--${name} must be an integer ≥ ${min}, not "${text}"`);
      process.exit(2);
    }
    return value;
  };
  const options: ChaosOptions = {
    seed: numberOf('seed', values.seed!, 0),
    seconds: numberOf('seconds', values.seconds!, 5),
    orders: numberOf('orders', values.orders!, 1),
    ...(values.quiet ? {} : { log: (line: string) => console.log(line) }),
  };
  const report = await runChaos(options);
  console.log(formatReport(report));
  process.exit(campaignPassed(report) ? 0 : 1);
}
