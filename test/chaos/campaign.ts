/**
 * A seeded, time-bounded, randomised fault campaign against the real engine (`npm run chaos`):
 *
 *   node --import tsx test/chaos/campaign.ts [--seed 42] [--seconds 60] [--orders 24] [--drain-seconds 150]
 *   node --import tsx test/chaos/campaign.ts --topology [...]   (topology-campaign.ts)
 *
 * The real Temporal server (`temporal server start-dev`, its state in a SQLite file) and two order workers run in
 * processes of their own (test/orders/fixtures/restart-env.ts), the API simulator, the intake and the bots in this one.
 * For `--seconds` it submits `--orders` orders at random moments through the intake (mixed sizes: auto-approved, one
 * approver, two approvers), approves them with a bot through the signed path (OrderClient with the action keys), arms
 * simulator faults on validate and buy (5xx, 429, latency, apply-then-drop), SIGKILLs workers (some with a buy in
 * flight) and starts others, and SIGKILLs the Temporal server once and starts it again on the same file and port. An
 * ops bot resolves every BUY_UNCERTAIN order from what the simulator (the provider) shows it created. Then faults
 * stop and the campaign waits for every order to settle: what dead workers held comes back once Temporal's own
 * timeouts pass (a workflow task 10 s, a journal write 15 s). Finally every ticket is re-sent through the intake with
 * the same body.
 *
 * It prints orders, bought, double buys, lost orders and orders left unsettled, and exits 1 unless the last
 * three are 0. See docs/chaos.md.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { FINAL_STATES } from '../../domain/lifecycle/index.js';
import { orderOf, workflowOf } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { startRestartEnv, withTimeout, type RestartEnv } from '../orders/fixtures/restart-env.js';
import { auditOrders, resendTickets, type OrderFinding } from './accounting.js';
import { startBots, type OrderDesk } from './bots.js';
import { describeUnsettled } from './diagnose.js';
import { armProviderFault, buyInFlight } from './faults.js';
import { planOrders, sizesOf, type ChaosOrder } from './orders.js';
import { seededDice, sleep, type Dice } from './random.js';
import {
  countLines,
  list,
  newTally,
  outcomeLines,
  problemLines,
  type ChaosOptions,
  type ChaosTally,
} from './report.js';
import { formatTopologyReport, runTopologyChaos, topologyPassed } from './topology-campaign.js';
import { TEMPORAL_KIND_VARIABLE, temporalKindOf, type TemporalKind } from '../topology/temporal-part.js';

export type { ChaosOptions };

export interface ChaosReport extends ChaosTally {
  /** SIGKILLs of the Temporal server, each followed by a start on the same state. */
  temporalKills: number;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const dice = seededDice(options.seed);

  let cleanup: Array<() => Promise<void>> = [];
  let db = options.db;
  if (!db) {
    // The tests' PostgreSQL helper outside ava: its after-hook is ours to run.
    const pg = usePostgres({ after: { always: (fn: () => Promise<void>) => cleanup.push(fn) } } as never);
    db = await pg.database();
  }
  const env = await startRestartEnv(db, { log: (line) => log(`  ${line}`) });
  const report: ChaosReport = { ...newTally(options), temporalKills: 0 };
  try {
    await runCampaign(env, options, report, dice, log);
  } finally {
    await env.stop().catch((error: unknown) => log(`stopping: ${String(error)}`));
    for (const fn of cleanup) await fn().catch(() => undefined);
    cleanup = [];
  }
  report.elapsedSeconds = Math.round((Date.now() - started) / 1000);
  return report;
}

/** The engine's own clients, in this process: the intake, OrderClient's status and signed actions. */
function engineDesk(env: RestartEnv): OrderDesk {
  return {
    async submit(order) {
      const taken = await withTimeout(env.intake.submit(order.body, 'alice'), 10_000);
      if (!taken) throw new Error('no answer within 10 s');
    },
    status: (ticketId) => env.status(ticketId, 3_000),
    async approve(ticketId, approverId, quote) {
      await env.orders.approve(orderOf(ticketId), { approverId, ...quote, comment: 'chaos bot' });
      return 'taken';
    },
    async resolveBuy(ticketId, resolution, status) {
      await env.orders.resolveBuy(orderOf(ticketId), {
        actor: 'olga',
        attempt: status.buyAttempts ?? 0,
        ...resolution,
      });
    },
    productsFor: (ticketId) => env.productsFor(ticketId),
  };
}

async function runCampaign(
  env: RestartEnv,
  options: ChaosOptions,
  report: ChaosReport,
  dice: Dice,
  log: (line: string) => void,
): Promise<void> {
  const { random, pick, between } = dice;
  const { sim } = env;
  const campaignMs = options.seconds * 1000;
  const orders = planOrders(dice, options.seed, options.orders, campaignMs);
  report.sizes = sizesOf(orders);

  // ---- processes ----
  let temporalDown = false;
  let restartsPending = 0;
  const ensureWorkers = async () => {
    while (!temporalDown && env.workers.size + restartsPending < 2) {
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
  // The campaign's time runs from here: on a loaded machine the first workers alone can take much of it.
  const t0 = Date.now();
  const elapsed = () => Date.now() - t0;

  // ---- bots: submitter, approver, ops; all through the real paths ----
  const bots = startBots(orders, engineDesk(env), report, { elapsed, log, pollMs: 500 });

  // ---- chaos: faults, worker kills, one Temporal kill ----
  const killAWorker = async (reason: string) => {
    const live = [...env.workers].filter((worker) => worker.alive());
    if (!live.length) return;
    const victim = pick(live);
    log(`t+${Math.round(elapsed() / 1000)}s kill worker ${victim.child.pid} (${reason})`);
    await victim.kill();
    report.workerKills++;
    await sleep(between(300, 2_000));
  };

  const temporalKillAt = campaignMs * (0.35 + random() * 0.2);
  const buyInFlightAt = campaignMs * (0.15 + random() * 0.5);
  const heldBuy = buyInFlight(sim, report.faults);
  let nextFaultAt = between(500, 2_000);
  let nextKillAt = between(4_000, 10_000);
  let temporalKilled = false;
  let buyInFlightArmed = false;
  while (elapsed() < campaignMs) {
    const now = elapsed();
    if (now >= nextFaultAt) {
      armProviderFault(sim, dice, report.faults);
      nextFaultAt = now + between(500, 2_500);
    }
    if (!buyInFlightArmed && now >= buyInFlightAt) {
      // A buy held at the provider, and every worker killed while it is outstanding.
      buyInFlightArmed = true;
      heldBuy.arm();
    }
    if (heldBuy.sprung()) {
      await sleep(300);
      log(`t+${Math.round(elapsed() / 1000)}s kill every worker: a buy is in flight`);
      const live = [...env.workers];
      await Promise.all(live.map((worker) => worker.kill()));
      report.workerKills += live.length;
      report.buyInFlightKills++;
    }
    if (!temporalKilled && now >= temporalKillAt) {
      temporalKilled = true;
      temporalDown = true;
      log(`t+${Math.round(now / 1000)}s kill the Temporal server`);
      await env.killTemporal();
      report.temporalKills++;
      await sleep(between(500, 2_000));
      await env.startTemporal();
      temporalDown = false;
      log(`t+${Math.round(elapsed() / 1000)}s Temporal back`);
    }
    if (now >= nextKillAt) {
      await killAWorker('random');
      nextKillAt = elapsed() + between(5_000, 12_000);
    }
    // workers that died of Temporal's absence are replaced as well
    void ensureWorkers();
    await sleep(250);
  }
  sim.clearFaults();
  log(`t+${Math.round(elapsed() / 1000)}s campaign over: faults cleared; draining`);

  // ---- drain: every order must settle; what a killed worker held comes back once its timeout passes ----
  const drainUntil = Date.now() + (options.drainSeconds ?? 150) * 1000;
  let lastReport = Date.now();
  while (Date.now() < drainUntil) {
    await ensureWorkers();
    const open = orders.filter((order) => !order.settled);
    if (!open.length) break;
    if (Date.now() - lastReport >= 15_000) {
      lastReport = Date.now();
      log(
        `t+${Math.round(elapsed() / 1000)}s ${open.length} open: ${open.map((order) => `${order.ticketId} ${order.status?.state ?? '?'}`).join(', ')}`,
      );
    }
    await sleep(1_000);
  }
  const unsettled = orders.filter((order) => order.submitted && !order.settled).map((order) => order.ticketId);
  if (unsettled.length) {
    log(`t+${Math.round(elapsed() / 1000)}s what Temporal says of the orders left unsettled:`);
    await describeUnsettled(env, unsettled, (line) => log(`  ${line}`));
  }
  await bots.stop(5_000);

  // ---- accounting, then every ticket again, same body: nothing may start or be bought ----
  await auditOrders(orders, sim, (order) => findInEngine(env, order), report);
  await resendTickets(orders, sim, async (order) => (await env.intake.submit(order.body, 'alice')).created, report);
}

/** The order as its workflow last showed it to the bots, checked against what Postgres recorded. */
async function findInEngine(env: RestartEnv, order: ChaosOrder): Promise<OrderFinding> {
  const view = order.submitted ? await env.repository.getOrder(workflowOf(order.ticketId)) : null;
  const state = order.status?.state ?? view?.order.status;
  if (!order.submitted || !view || !state)
    return { missing: !order.submitted ? 'never accepted by the intake' : 'no record in Postgres' };
  if (!order.settled || !FINAL_STATES.has(state)) return { state };
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
  const productUid = order.status?.product?.technicalServiceUid ?? recorded?.order.product?.technicalServiceUid;
  return {
    state,
    ...(productUid ? { productUid } : {}),
    ...(recorded ? {} : { disagreement: `Temporal says ${state}, Postgres ${view.order.status}` }),
  };
}

export function formatReport(report: ChaosReport): string {
  return [
    `chaos: seed ${report.seed}, ${report.seconds} s of faults, ${report.orders} orders (${list(report.sizes)}), ${report.elapsedSeconds} s in all`,
    `faults armed: ${list(report.faults)}`,
    `kills: ${report.workerKills} worker(s) (${report.buyInFlightKills} time(s) with a buy in flight), ${report.temporalKills} Temporal server`,
    ...outcomeLines(report),
    ...problemLines(report),
    ...countLines([
      ['orders', report.orders],
      ['bought', report.bought],
      ['double buys', report.doubleBuys],
      ['lost orders', report.lost],
      ['orders left unsettled', report.unsettled],
    ]),
  ].join('\n');
}

export function campaignPassed(report: ChaosReport): boolean {
  return report.doubleBuys === 0 && report.lost === 0 && report.unsettled === 0 && report.startedAgain === 0;
}

const USAGE = `usage: npm run chaos -- [--topology [--temporal start-dev|cluster]] [--seed N] [--seconds N] [--orders N]
                       [--drain-seconds N] [--quiet]

  (no --topology)      workers and Temporal's server killed under the order workflow, in this process (campaign.ts)
  --topology           API servers, workers, PostgreSQL and Temporal as processes of their own (topology-campaign.ts)
  --temporal cluster   with --topology: Temporal as a cluster shaped like production, its history, matching, frontend
                       and worker processes killed too (built first when missing: npm run cluster:install);
                       default: TOPOLOGY_TEMPORAL, else start-dev
  --seed N             the dice (default 42): one seed arms the same faults on every machine
  --seconds N          how long faults and kills go on (default 60)
  --orders N           orders submitted over that time (default 24)
  --drain-seconds N    how long every order may take to settle afterwards (default 150; 300 with --topology)
  --quiet              the report alone

Exit 0 when no order was bought twice or lost (nor a vote, with --topology) and every order settled; 1 otherwise.
See docs/chaos.md.`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        seed: { type: 'string', default: '42' },
        seconds: { type: 'string', default: '60' },
        orders: { type: 'string', default: '24' },
        'drain-seconds': { type: 'string' },
        topology: { type: 'boolean', default: false },
        temporal: { type: 'string' },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (values.temporal !== undefined && !values.topology) {
    console.error('--temporal goes with --topology: the campaign without it runs start-dev in this process');
    process.exit(2);
  }
  let temporal: TemporalKind;
  try {
    temporal = temporalKindOf(values.temporal ?? process.env[TEMPORAL_KIND_VARIABLE]);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  const numberOf = (name: string, text: string, min: number) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) {
      console.error(`--${name} must be an integer ≥ ${min}, not "${text}"`);
      process.exit(2);
    }
    return value;
  };
  const drain = values['drain-seconds'];
  const options: ChaosOptions = {
    seed: numberOf('seed', values.seed, 0),
    seconds: numberOf('seconds', values.seconds, 5),
    orders: numberOf('orders', values.orders, 1),
    ...(drain === undefined ? {} : { drainSeconds: numberOf('drain-seconds', drain, 0) }),
    ...(values.quiet ? {} : { log: (line: string) => console.log(line) }),
    temporal,
  };
  if (values.topology) {
    const report = await runTopologyChaos(options);
    console.log(formatTopologyReport(report));
    process.exit(topologyPassed(report) ? 0 : 1);
  }
  const report = await runChaos(options);
  console.log(formatReport(report));
  process.exit(campaignPassed(report) ? 0 : 1);
}
