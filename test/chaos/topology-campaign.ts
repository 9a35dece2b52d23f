/**
 * The fault campaign on the topology harness (`npm run chaos -- --topology`, test/topology/cluster.ts): two API servers
 * (`mve-orders serve`) reached through a round-robin client, two workers (`mve-orders worker`), PostgreSQL, and the
 * real Temporal server (`temporal server start-dev`), each a process of its own.
 *
 * Every person is a bot calling the HTTP API (topology-desk.ts): the ticket system submits and reads, fiona and dave
 * vote, ops settle uncertain buys from the provider's products. For `--seconds` it arms the provider's faults (as
 * campaign.ts), SIGKILLs workers (once every worker, with a buy in flight) and API servers and starts them again in
 * their slots, stops PostgreSQL for a few seconds (when the harness may: its own embedded server) and Temporal. Then
 * it waits for every order to settle, at most `--drain-seconds` (default 300: the real server skips no time), and
 * checks every order, every vote the API took, every error a client met. See docs/chaos.md.
 */
import type { ApiOrder, OrderHistory } from '../../client/http-client/index.js';
import { json } from '../helpers/json.js';
import { TEST_POLICIES } from '../helpers/orders.js';
import { startCluster, type Cluster } from '../topology/cluster.js';
import type { ClientStats } from '../topology/round-robin.js';
import { auditOrders, productsOf, resendTickets, type OrderFinding } from './accounting.js';
import { startBots } from './bots.js';
import { describeUnsettled } from './diagnose.js';
import { armProviderFault, buyInFlight } from './faults.js';
import { planOrders, sizesOf, type ChaosOrder } from './orders.js';
import { OutageLog, outageNames, type Outage, type Stall } from './outages.js';
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
import { planTemporalKills, temporalKiller, KILLED_KINDS } from './temporal-kills.js';
import { httpDesk } from './topology-desk.js';
import type { ServiceKind } from '../../tooling/temporal/cluster/index.js';
import type { TemporalKind } from '../topology/temporal-part.js';

export interface TopologyReport extends ChaosTally {
  /** What ran: Temporal (which CLI), PostgreSQL, servers and workers. */
  engine: string;
  serverKills: number;
  /** How long each PostgreSQL and Temporal stop lasted, in ms. */
  postgresStops: number[];
  /** Why PostgreSQL was not stopped, when it was not. */
  postgresSkipped?: string;
  temporalStops: number[];
  temporal: TemporalKind;
  /** On a cluster: its processes killed, by kind, and how long each was down (ms). */
  temporalKills: Partial<Record<ServiceKind, number>>;
  temporalKillDowns: number[];
  drainSeconds: number;
  drainLimitSeconds: number;
  lostVotes: number;
  http: ClientStats;
  /** Answers that refused a bot's submit, vote or resolution, by status and code. */
  refusals: Record<string, number>;
  longestStall?: Stall;
}

const DEFAULT_DRAIN_SECONDS = 300;
/** The workers' and servers' last lines kept for a campaign that fails. */
const KEPT_LINES = 3_000;
/** How long PostgreSQL and Temporal stay stopped. */
const STOP_MS = [2_000, 6_000] as const;

export async function runTopologyChaos(options: ChaosOptions): Promise<TopologyReport> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const dice = seededDice(options.seed);
  // The children's own lines as they come on request; else kept, and printed if the campaign fails. What the cluster
  // does, always.
  const childLines = Boolean(process.env['TOPOLOGY_LOG']);
  const kept: string[] = [];
  const cluster = await startCluster({
    ...(options.temporal ? { temporal: options.temporal } : {}),
    // the sizes' approvals as in campaign.ts: auto, one approver, two
    env: { MVE_APPROVAL_POLICY: JSON.stringify({ staging: TEST_POLICIES.staging }) },
    log: (text) => {
      const lines = text.split('\n');
      if (childLines || !text.startsWith('[')) for (const line of lines) log(`  ${line}`);
      else kept.push(...lines);
      if (kept.length > KEPT_LINES) kept.splice(0, kept.length - KEPT_LINES);
    },
  });
  const report: TopologyReport = {
    ...newTally(options),
    engine: `Temporal ${cluster.temporal.describe}; PostgreSQL ${cluster.postgres.kind}; ${cluster.servers.length} API servers, ${cluster.workers.length} workers`,
    serverKills: 0,
    postgresStops: [],
    ...(cluster.postgres.outage ? { postgresSkipped: cluster.postgres.outage } : {}),
    temporalStops: [],
    temporal: cluster.temporal.kind,
    temporalKills: {},
    temporalKillDowns: [],
    drainSeconds: 0,
    drainLimitSeconds: options.drainSeconds ?? DEFAULT_DRAIN_SECONDS,
    lostVotes: 0,
    http: cluster.http.stats,
    refusals: {},
  };
  log(`engine: ${report.engine}`);
  try {
    await runCampaign(cluster, options, report, dice, log);
  } finally {
    await cluster.stop().catch((error: unknown) => log(`stopping: ${String(error)}`));
  }
  report.elapsedSeconds = Math.round((Date.now() - started) / 1000);
  if (kept.length && !topologyPassed(report)) {
    log(`the processes' last ${kept.length} lines (TOPOLOGY_LOG=1 prints them as they come):`);
    for (const line of kept) log(`  ${line}`);
  }
  return report;
}

/** What the campaign's steps share: the cluster and its report, the orders, the clock, the outages so far. */
interface Campaign {
  cluster: Cluster;
  report: TopologyReport;
  dice: Dice;
  log: (line: string) => void;
  orders: ChaosOrder[];
  outages: OutageLog;
  campaignMs: number;
  elapsed: () => number;
  /** The campaign's clock for log lines: `t+42s`. */
  at: () => string;
}

async function runCampaign(
  cluster: Cluster,
  options: ChaosOptions,
  report: TopologyReport,
  dice: Dice,
  log: (line: string) => void,
): Promise<void> {
  const campaignMs = options.seconds * 1000;
  const t0 = Date.now();
  const elapsed = () => Date.now() - t0;
  const at = () => `t+${Math.round(elapsed() / 1000)}s`;
  const orders = planOrders(dice, options.seed, options.orders, campaignMs);
  report.sizes = sizesOf(orders);
  const campaign: Campaign = { cluster, report, dice, log, orders, outages: new OutageLog(), campaignMs, elapsed, at };
  const bots = startBots(orders, httpDesk(cluster, report.refusals), report, {
    elapsed,
    log,
    pollMs: 1_000,
    onRead: (order, status) => campaign.outages.onRead(order, status),
  });
  const slots = processSlots(campaign);
  await unleashChaos(campaign, slots);
  await drain(campaign);
  await bots.stop();
  await slots.settle();
  await account(campaign);
}

/** The worker and API server slots: a killed process is started again in its slot, as often as it takes. */
interface ProcessSlots {
  /** Starts `kind` `index` again after `delayMs`, in the background, and ends `outage` once it runs. */
  restart(kind: 'worker' | 'server', index: number, outage: Outage, delayMs?: number): void;
  /** SIGKILLs a worker; the outage it begins. */
  killWorker(index: number, why: string): Promise<Outage>;
  /** The slots whose process runs and is not being started again. */
  liveWorkers(): Cluster['workers'];
  liveServers(): Cluster['servers'];
  /** Waits (at most 90 s) for the restarts still going, then stops trying; one left over is a problem. */
  settle(): Promise<void>;
}

function processSlots({ cluster, report, outages, log, at }: Campaign): ProcessSlots {
  const restarting = new Set<string>();
  let givingUp = false;
  const startAgain = async (kind: 'worker' | 'server', index: number, outage: Outage, delayMs: number) => {
    const name = `${kind} ${index}`;
    restarting.add(name);
    await sleep(delayMs);
    while (!givingUp) {
      try {
        await (kind === 'worker' ? cluster.startWorker(index) : cluster.startServer(index));
        break;
      } catch (error) {
        log(`${at()} ${name} did not start: ${String(error).split('\n')[0]}`);
        await sleep(1_000);
      }
    }
    outages.end(outage);
    restarting.delete(name);
  };
  return {
    restart: (kind, index, outage, delayMs = 0) => void startAgain(kind, index, outage, delayMs),
    async killWorker(index, why) {
      log(`${at()} kill worker ${index} (pid ${cluster.workers[index].pid}, ${why})`);
      await cluster.killWorker(index);
      report.workerKills++;
      return outages.begin(`worker ${index} killed`);
    },
    liveWorkers: () => cluster.workers.filter((slot) => slot.alive() && !restarting.has(`worker ${slot.index}`)),
    liveServers: () => cluster.servers.filter((slot) => slot.alive() && !restarting.has(`server ${slot.index}`)),
    async settle() {
      for (const until = Date.now() + 90_000; restarting.size && Date.now() < until;) await sleep(500);
      if (restarting.size) report.problems.push(`not started again after the campaign: ${[...restarting].join(', ')}`);
      givingUp = true;
    },
  };
}

/**
 * For the campaign's length: the provider's faults; worker and server kills (every worker at once when a buy is in
 * flight); PostgreSQL and Temporal stopped once each. The faults are cleared at the end.
 */
async function unleashChaos(campaign: Campaign, slots: ProcessSlots): Promise<void> {
  const { cluster, report, dice, log, campaignMs, elapsed, at } = campaign;
  const { random, pick, between } = dice;
  const { sim } = cluster;
  const postgresAt = campaignMs * (0.2 + random() * 0.15);
  const postgresFor = between(...STOP_MS);
  const temporalAt = campaignMs * (0.55 + random() * 0.15);
  const temporalFor = between(...STOP_MS);
  const buyInFlightAt = campaignMs * (0.15 + random() * 0.5);
  const heldBuy = buyInFlight(sim, report.faults);
  let nextFaultAt = between(500, 2_000);
  let nextWorkerKillAt = between(4_000, 10_000);
  let nextServerKillAt = between(6_000, 14_000);
  let postgresDone = false;
  let temporalDone = false;
  let buyInFlightArmed = false;
  if (report.postgresSkipped) log(`PostgreSQL will not be stopped: ${report.postgresSkipped}`);
  const temporalKills = temporalKiller(
    cluster.temporal.services,
    cluster.temporal.services.length ? planTemporalKills(dice, campaignMs) : [],
    { kills: report.temporalKills, downs: report.temporalKillDowns },
    campaign,
  );

  while (elapsed() < campaignMs) {
    const now = elapsed();
    await temporalKills.due(now);
    if (now >= nextFaultAt) {
      armProviderFault(sim, dice, report.faults);
      nextFaultAt = now + between(500, 2_500);
    }
    if (!buyInFlightArmed && now >= buyInFlightAt) {
      buyInFlightArmed = true;
      heldBuy.arm();
    }
    if (heldBuy.sprung()) {
      await sleep(300);
      const live = slots.liveWorkers();
      const killed = await Promise.all(live.map((slot) => slots.killWorker(slot.index, 'a buy is in flight')));
      report.buyInFlightKills++;
      live.forEach((slot, i) => slots.restart('worker', slot.index, killed[i], between(300, 2_000)));
    }
    if (!postgresDone && now >= postgresAt) {
      postgresDone = true;
      if (!report.postgresSkipped) await stopAndStart(campaign, 'PostgreSQL', postgresFor);
    }
    if (!temporalDone && now >= temporalAt) {
      temporalDone = true;
      // a cluster is stopped whole only with every killed process back
      await temporalKills.restarted();
      await stopAndStart(campaign, 'Temporal', temporalFor);
    }
    if (now >= nextWorkerKillAt) {
      const live = slots.liveWorkers();
      if (live.length) {
        const victim = pick(live);
        slots.restart('worker', victim.index, await slots.killWorker(victim.index, 'random'), between(300, 2_000));
      }
      nextWorkerKillAt = elapsed() + between(5_000, 12_000);
    }
    if (now >= nextServerKillAt) {
      // never the last server that answers: clients behind a load balancer always have one
      const live = slots.liveServers();
      if (live.length > 1) {
        const victim = pick(live);
        log(`${at()} kill API server ${victim.index} (pid ${victim.pid})`);
        await cluster.killServer(victim.index);
        report.serverKills++;
        slots.restart(
          'server',
          victim.index,
          campaign.outages.begin(`server ${victim.index} killed`),
          between(500, 3_000),
        );
      }
      nextServerKillAt = elapsed() + between(6_000, 14_000);
    }
    await sleep(250);
  }
  sim.clearFaults();
  await temporalKills.restarted();
  log(`${at()} campaign over: faults cleared; draining (at most ${report.drainLimitSeconds} s)`);
}

/** Stops PostgreSQL or Temporal for `forMs`, then starts it again; how long it was down goes in the report. */
async function stopAndStart(
  { cluster, report, outages, log, at }: Campaign,
  what: 'PostgreSQL' | 'Temporal',
  forMs: number,
): Promise<void> {
  log(`${at()} stop ${what} for ${(forMs / 1000).toFixed(1)} s`);
  const outage = outages.begin(`${what} stopped`);
  await (what === 'PostgreSQL' ? cluster.stopPostgres() : cluster.stopTemporal());
  await sleep(forMs - (Date.now() - outage.from));
  await (what === 'PostgreSQL' ? cluster.startPostgres() : cluster.startTemporal());
  outages.end(outage);
  const downMs = (outage.to ?? Date.now()) - outage.from;
  (what === 'PostgreSQL' ? report.postgresStops : report.temporalStops).push(downMs);
  log(`${at()} ${what} back after ${(downMs / 1000).toFixed(1)} s`);
}

/** Every order must settle, at most the drain limit; an activity a killed worker held waits for its timeout. */
async function drain({ cluster, report, orders, outages, log, at }: Campaign): Promise<void> {
  const drainStarted = Date.now();
  const drainUntil = drainStarted + report.drainLimitSeconds * 1000;
  let lastReport = Date.now();
  while (Date.now() < drainUntil && orders.some((order) => !order.settled)) {
    if (Date.now() - lastReport >= 15_000) {
      lastReport = Date.now();
      const open = orders.filter((order) => !order.settled);
      log(
        `${at()} ${open.length} open: ${open.map((order) => `${order.ticketId} ${order.status?.state ?? '?'}`).join(', ')}`,
      );
    }
    await sleep(1_000);
  }
  report.drainSeconds = Math.round((Date.now() - drainStarted) / 1000);
  const unsettled = orders.filter((order) => order.submitted && !order.settled).map((order) => order.ticketId);
  if (unsettled.length) {
    log(`${at()} what Temporal says of the orders left unsettled:`);
    await describeUnsettled(cluster.temporal, unsettled, (line) => log(`  ${line}`));
  }
  outages.finish(orders);
  report.longestStall = outages.longestStall;
}

/** The accounting, every vote taken, then every ticket again: nothing may start or be bought. */
async function account(campaign: Campaign): Promise<void> {
  const { cluster, report, orders } = campaign;
  const { sim } = cluster;
  await auditOrders(orders, sim, (order) => findThroughApi(cluster, order), report);
  await describeDoubleBuys(campaign);
  await countLostVotes(cluster, orders, report);
  await resendTickets(
    orders,
    sim,
    async (order) => {
      const answer = await cluster.http.patient('POST', '/api/v1/orders', { as: 'ticket-bot', body: order.body });
      if (answer.status !== 200 && answer.status !== 201)
        throw new Error(`${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.status === 201;
    },
    report,
  );
  report.problems.push(...unclearAnswers(cluster.http.problems));
}

/** For every order the provider created more than one product for: its buy attempts and timeline, as ops read them. */
async function describeDoubleBuys({ cluster, orders, log }: Campaign): Promise<void> {
  for (const order of orders.filter((each) => productsOf(cluster.sim, each.ticketId).length > 1)) {
    const path = `/api/v1/orders/${encodeURIComponent(order.ticketId)}/history?events=false`;
    const answer = await cluster.http.patient('GET', path, { as: 'olga' });
    if (answer.status !== 200) continue;
    const { buyAttempts, timeline } = json<OrderHistory>(answer);
    log(`${order.ticketId}, bought more than once: its buy attempts and timeline`);
    for (const attempt of buyAttempts)
      log(
        `  attempt ${attempt.attempt}: intent ${attempt.intentAt}, sent ${attempt.sentAt ?? '-'}, ` +
          `${attempt.outcome ?? 'no outcome'} ${attempt.technicalServiceUid ?? ''} at ${attempt.finishedAt ?? '-'}` +
          `${attempt.resolvedBy ? ` (resolved by ${attempt.resolvedBy})` : ''}${attempt.errorMessage ? `: ${attempt.errorMessage}` : ''}`,
      );
    for (const entry of timeline) log(`  ${entry.at} ${entry.state ?? 'note'} by ${entry.actor}: ${entry.text}`);
  }
}

/** The client's problems, alike ones (another order, another server) counted once: `unclear answer ×17: GET …`. */
function unclearAnswers(problems: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const problem of problems) {
    const key = problem.replace(/\/api\/v1\/orders\/[^/\s?]+/, '/api/v1/orders/{id}').replace(/ from server \d+/, '');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([problem, count]) => `unclear answer ×${count}: ${problem}`);
}

/** The order as ops read it through the API, with what its records (the history's timeline) say of its state. */
async function findThroughApi(cluster: Cluster, order: ChaosOrder): Promise<OrderFinding> {
  if (!order.submitted) return { missing: 'never accepted by the API' };
  const read = async (suffix: string) =>
    cluster.http.patient('GET', `/api/v1/orders/${encodeURIComponent(order.ticketId)}${suffix}`, { as: 'olga' });
  let last = '';
  // the records follow the workflow by a journal write, retried with backoff: give them time to agree
  for (const until = Date.now() + 30_000; ; await sleep(1_000)) {
    const view = await read('');
    if (view.status === 404) return { missing: 'the API does not know it' };
    if (view.status !== 200) return { missing: `reading it: ${view.status} ${JSON.stringify(view.body)}` };
    const order = json<ApiOrder>(view);
    // a history the API refused has no timeline
    const { timeline = [] } = json<Partial<OrderHistory>>(await read('/history?events=false'));
    const recorded = timeline.filter((entry) => entry.kind === 'state').at(-1)?.state;
    const finding: OrderFinding = {
      state: order.state,
      ...(order.product?.technicalServiceUid ? { productUid: order.product.technicalServiceUid } : {}),
    };
    if (recorded === order.state) return finding;
    last = `the ${order.source} says ${order.state}, the records ${recorded ?? 'nothing'}`;
    if (Date.now() > until) return { ...finding, disagreement: last };
  }
}

/** A vote the API took (2xx) that the order does not show afterwards: in its records' votes or its approval round. */
async function countLostVotes(cluster: Cluster, orders: readonly ChaosOrder[], report: TopologyReport): Promise<void> {
  for (const order of orders.filter((entry) => entry.votesTaken.length)) {
    const path = `/api/v1/orders/${encodeURIComponent(order.ticketId)}`;
    const [view, history] = await Promise.all([
      cluster.http.patient('GET', path, { as: 'olga' }),
      cluster.http.patient('GET', `${path}/history?events=false`, { as: 'olga' }),
    ]);
    // an answer that refused the read has neither votes nor a round
    const { votes = [] } = json<Partial<OrderHistory>>(history);
    const { source, approval } = json<Partial<ApiOrder>>(view);
    for (const approver of order.votesTaken) {
      const recorded = votes.some((vote) => vote.approverId === approver && vote.decision === 'approve');
      // an order read from the records has no approval round to show
      const counted = source === 'records' || (approval?.votes ?? []).some((vote) => vote.approverId === approver);
      if (recorded && counted) continue;
      report.lostVotes++;
      report.problems.push(
        `${order.ticketId}: ${approver}'s vote was taken, but ${recorded ? 'the approval round' : 'the records'} do not show it`,
      );
    }
  }
}

/** On a cluster, the service kinds the campaign never killed (it was too short to reach their turn). */
function unkilledKinds(report: TopologyReport): ServiceKind[] {
  if (report.temporal !== 'cluster') return [];
  return KILLED_KINDS.filter((kind) => !report.temporalKills[kind]);
}

export function formatTopologyReport(report: TopologyReport): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const stops = (what: string, durations: number[]) =>
    `${what} stopped ${durations.length} time(s)${durations.length ? ` (${durations.map(seconds).join(', ')})` : ''}`;
  const { http, longestStall } = report;
  return [
    `chaos --topology: seed ${report.seed}, ${report.seconds} s of faults, ${report.orders} orders (${list(report.sizes)}), ${report.elapsedSeconds} s in all`,
    `engine: ${report.engine}`,
    `faults armed: ${list(report.faults)}`,
    `kills: ${report.workerKills} worker(s) (${report.buyInFlightKills} time(s) with a buy in flight), ${report.serverKills} API server(s); ` +
      `${report.postgresSkipped ? `PostgreSQL not stopped (${report.postgresSkipped})` : stops('PostgreSQL', report.postgresStops)}; ${stops('Temporal', report.temporalStops)}`,
    ...(report.temporalKillDowns.length || Object.keys(report.temporalKills).length
      ? [
          `Temporal processes killed: ${list(report.temporalKills)}; down ${report.temporalKillDowns.map(seconds).join(', ')}`,
        ]
      : []),
    `drain: ${report.drainSeconds} s (at most ${report.drainLimitSeconds})`,
    ...outcomeLines(report),
    `HTTP: ${http.requests} requests (by server: ${http.answersByServer.join(', ')}); 503s met ${http.unavailable} (${list(http.unavailableBy)}); ` +
      `429s ${http.rateLimited}; unanswered attempts ${http.unanswered} (${list(http.unansweredWhy)}); votes already counted ${report.votesAlreadyCounted}`,
    `actions refused: ${list(report.refusals)}`,
    `longest patient call: ${seconds(http.longestPatientMs)}${http.longestPatientCall ? ` (${http.longestPatientCall})` : ''}`,
    `longest stall during an outage: ${longestStall ? `${seconds(longestStall.ms)} (${longestStall.ticketId} in ${longestStall.state}; ${outageNames(longestStall.outages)})` : 'none'}`,
    ...problemLines(report),
    ...(unkilledKinds(report).length
      ? [`Temporal processes never killed: ${unkilledKinds(report).join(', ')} (make --seconds longer)`]
      : []),
    ...countLines([
      ['orders', report.orders],
      ['bought', report.bought],
      ['double buys', report.doubleBuys],
      ['lost orders', report.lost],
      ['lost votes', report.lostVotes],
      ['orders left unsettled', report.unsettled],
      ['unclear 5xx answers', report.http.unclearServerErrors],
    ]),
  ].join('\n');
}

/**
 * Passed: no double buy, no order or vote lost, every order settled, no unclear 5xx, no ticket started twice; on a
 * Temporal cluster, each of its service kinds killed at least once.
 */
export function topologyPassed(report: TopologyReport): boolean {
  return (
    unkilledKinds(report).length === 0 &&
    report.doubleBuys === 0 &&
    report.lost === 0 &&
    report.lostVotes === 0 &&
    report.unsettled === 0 &&
    report.http.unclearServerErrors === 0 &&
    report.startedAgain === 0
  );
}
