/**
 * `npm run bench:load`: many callers at once against two API servers, all on loopback, bounded in time. The engine
 * runs as a deployment does (the topology harness, test/topology/cluster.ts): two `mve-orders serve` and two
 * `mve-orders worker` processes, PostgreSQL, Temporal (`temporal server start-dev`) and the API simulator as the
 * provider.
 *
 * Ticket systems and finance approvers, each with a token of its own, are added. The ticket systems first submit a
 * pool of orders that need one approval, one for each vote the phase can make. Then for `--seconds`, autocannon keeps
 * `--connections` connections busy, half on each server (bench/load/traffic.ts): ticket systems poll and list their
 * orders and submit new ones; approvers read their inbox and orders and approve pool orders with the quoted price,
 * each vote a different order. Submits and votes come at a set rate; each connection sends at most `--connection-rate`
 * requests a second (default 2: a client polling every half second), or, with 0, as fast as the servers answer (a
 * flood, which on one machine holding every process starves the workers and Temporal of CPU).
 *
 * It prints, per route, answers, answers a second, p50 and p99 of the 2xx answers, 2xx and 429 counts, requests left
 * unanswered and errors (any other status); per role, timeouts (no answer within 10 s) and connection errors. Then it
 * waits for the workers to catch up and checks that no order was lost or bought twice (bench/load/check.ts). Exit 1 on
 * any error or failed check; a 429 is the documented answer to a credential over its budget, not an error.
 *
 * The servers run with the deployment's default rate limit, 600 requests a minute per credential, counted by each
 * server. With two ticket systems sharing 60% of the connections, theirs runs out within the phase and they are
 * answered 429 while the approvers go on: the limit at work. A 429 costs the servers next to nothing, so the figures
 * of what the stack can serve come from `--rate-limit 0`.
 *
 *   npm run bench:load                         30 s, 200 connections, rate limit 600 a minute (about 1½ minutes)
 *   npm run bench:load -- --seconds 10         the CI form (under a minute on 2 cores)
 *   npm run bench:load -- --rate-limit 0       no per-credential limit: what the servers answer when nothing holds back
 *   npm run bench:load -- --connection-rate 0  every connection as fast as it is answered: the machine's limit
 *   npm run bench:load -- --connections 100 --ticket-systems 2 --approvers 10 --submit-rate 5 --vote-rate 5
 *   npm run -s bench:load -- --json            the figures as JSON (progress stays on stderr)
 *   npm run bench:load -- --temporal cluster   Temporal as a cluster shaped like production (test/topology/temporal-part.ts)
 *   npm run bench:load -- --temporal both      start-dev, then the cluster, each with the phase and checks
 *   TOPOLOGY_LOG=1 npm run bench:load          every process's output on stderr as well
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startCluster, type Cluster } from '../test/topology/cluster.js';
import { RoundRobinClient } from '../test/topology/round-robin.js';
import { checkOrders, type Checks } from './load/check.js';
import { addLoadPeople, type LoadPeople } from './load/people.js';
import { REQUEST_TIMEOUT_S, runLoad, type LoadOutcome } from './load/traffic.js';
import { seedVotePool } from './load/vote-pool.js';
import { TEMPORAL_OPTION_HELP, temporalKinds, type TemporalKind } from './temporal-choice.js';

const USAGE = `npm run bench:load -- [options]
  ${TEMPORAL_OPTION_HELP}
  --seconds <n>           the load phase (default 30)
  --connections <n>       connections, half on each server (default 200)
  --rate-limit <n>        requests a minute per credential per server, 0 for none (default 600)
  --ticket-systems <n>    (default 2)   --approvers <n> (default 10)
  --submit-rate <n>       submits a second (default 5)   --vote-rate <n> votes a second (default 5)
  --connection-rate <n>   requests a second per connection, 0 for as fast as answered (default 2)
  --json                  the figures as JSON (progress stays on stderr)
  --help                  this text`;

const { values } = parseArgs({
  options: {
    temporal: { type: 'string' },
    seconds: { type: 'string', default: '30' },
    connections: { type: 'string', default: '200' },
    'rate-limit': { type: 'string', default: '600' },
    'ticket-systems': { type: 'string', default: '2' },
    approvers: { type: 'string', default: '10' },
    'submit-rate': { type: 'string', default: '5' },
    'vote-rate': { type: 'string', default: '5' },
    'connection-rate': { type: 'string', default: '2' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

function wholeNumber(name: string, least: number): number {
  const text = values[name as keyof typeof values] as string;
  const value = Number(text);
  if (!Number.isInteger(value) || value < least)
    throw new Error(`--${name} must be a whole number of at least ${least}, not ${text}`);
  return value;
}
/** The options, checked: a bad one is said with the usage, exit 2. */
function checked<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    process.stderr.write(`bench:load: ${(error as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
}
// without --temporal, the harness's own default: TOPOLOGY_TEMPORAL, else start-dev
const TEMPORAL = checked(() => temporalKinds(values.temporal ?? process.env['TOPOLOGY_TEMPORAL']));
const SECONDS = checked(() => wholeNumber('seconds', 1));
const CONNECTIONS = checked(() => wholeNumber('connections', 4));
const RATE_LIMIT = checked(() => wholeNumber('rate-limit', 0));
const TICKET_SYSTEMS = checked(() => wholeNumber('ticket-systems', 1));
const APPROVERS = checked(() => wholeNumber('approvers', 1));
const SUBMIT_RATE = checked(() => wholeNumber('submit-rate', 1));
const VOTE_RATE = checked(() => wholeNumber('vote-rate', 1));
const CONNECTION_RATE = checked(() => wholeNumber('connection-rate', 0));
/** The harness's ops user: lists every order, for the seeding and the checks. */
const OPS = 'olga';

const progress = (line: string) => process.stderr.write(`${line}\n`);
const secondsSince = (start: number) => Math.round((performance.now() - start) / 100) / 10;

/** The bench on each Temporal asked for, one after the other; exit 1 when any run failed. */
async function main(): Promise<void> {
  const runs: RunFigures[] = [];
  for (const kind of TEMPORAL) {
    const run = await runOn(kind);
    runs.push(run);
    if (!values.json) report(run);
  }
  if (values.json) {
    const json = runs.map(jsonOf);
    process.stdout.write(`${JSON.stringify(json.length === 1 ? json[0] : json, null, 2)}\n`);
  }
  process.exitCode = runs.some((run) => run.failures.length) ? 1 : 0;
}

async function runOn(kind: TemporalKind): Promise<RunFigures> {
  const started = performance.now();
  const loadBefore = loadavg();
  progress(`starting the cluster (2 servers, 2 workers, Temporal ${kind}, rate limit ${RATE_LIMIT || 'off'})…`);
  const cluster: Cluster = await startCluster({
    servers: 2,
    workers: 2,
    temporal: kind,
    env: { MVE_RATE_LIMIT: String(RATE_LIMIT) },
    ...(process.env['TOPOLOGY_LOG'] ? { log: progress } : {}),
  });
  try {
    const people = await addLoadPeople(cluster.postgres.url, { ticketSystems: TICKET_SYSTEMS, approvers: APPROVERS });
    const client = new RoundRobinClient(() => cluster.serverUrls(), { ...cluster.tokens, ...people.tokens });
    const startupSeconds = secondsSince(started);
    progress(`${cluster.describe()}\ncluster up in ${startupSeconds} s`);
    const pool = await seedPool(client, people);

    progress(`load: ${CONNECTIONS} connections for ${SECONDS} s…`);
    const outcome = await runLoad({
      urls: cluster.serverUrls(),
      seconds: SECONDS,
      connections: CONNECTIONS,
      people,
      ticketsOf: pool.ticketsOf,
      votePool: pool.waiting,
      submitRate: SUBMIT_RATE,
      voteRate: VOTE_RATE,
      connectionRate: CONNECTION_RATE,
      newTicketId: (n) => `LOAD-N-${n}`,
    });
    const loadAfter = loadavg();

    progress('checking the orders…');
    const checks = await checkOrders({
      client,
      ops: OPS,
      poolTickets: pool.tickets,
      poolOrderIds: new Map(pool.waiting.map((order) => [order.ticketId, order.orderId])),
      outcome,
      productsFor: (ticketId) => cluster.productsFor(ticketId),
      log: progress,
    });
    const failures = [...outcomeFailures(outcome), ...checks.failures, ...client.problems];
    return {
      temporal: {
        kind,
        describe: cluster.temporal.describe,
        processes: cluster.temporal.services.map((service) => `${service.name} (pid ${service.pid})`),
      },
      people: { ticketSystems: people.ticketSystems.length, approvers: people.approvers.length },
      outcome,
      checks,
      failures,
      seconds: {
        startup: startupSeconds,
        seed: pool.seconds,
        load: Math.round(outcome.seconds * 10) / 10,
        catchUp: checks.catchUpSeconds,
        total: secondsSince(started),
      },
      load: { before: loadBefore, after: loadAfter, cpus: cpus().length },
    };
  } finally {
    await cluster.stop();
  }
}

/**
 * The vote pool, seeded before the phase: enough for every vote the rate allows (autocannon may run a second past the
 * phase), and an order or more for each ticket system to poll from the start.
 */
async function seedPool(client: RoundRobinClient, people: LoadPeople) {
  const poolSize = Math.max(VOTE_RATE * (SECONDS + 2), TICKET_SYSTEMS);
  const started = performance.now();
  const tickets = Array.from({ length: poolSize }, (_, i) => `LOAD-P-${i}`);
  const { waiting, ticketsOf } = await seedVotePool({
    client,
    ticketIds: tickets,
    ticketSystems: people.ticketSystems,
    ops: OPS,
    log: progress,
  });
  const seconds = secondsSince(started);
  progress(`${waiting.length} orders await one approval (${seconds} s)`);
  return { tickets, waiting, ticketsOf, seconds };
}

/** What the phase itself got wrong: error answers by route, timeouts and refused connections by role, an empty pool. */
function outcomeFailures(outcome: LoadOutcome): string[] {
  return [
    ...outcome.routes.flatMap((route) =>
      Object.entries(route.errors).map(
        ([status, count]) => `${route.route}: ${count} × ${status} (${route.errorSamples[status]})`,
      ),
    ),
    ...outcome.roles.flatMap((role) => [
      ...(role.timeouts ? [`${role.role}: ${role.timeouts} timeouts (over ${REQUEST_TIMEOUT_S} s)`] : []),
      ...(role.connectionErrors ? [`${role.role}: ${role.connectionErrors} connection errors`] : []),
    ]),
    ...(outcome.votesWithoutOrder ? [`${outcome.votesWithoutOrder} votes found the pool empty`] : []),
  ];
}

interface RunFigures {
  /** Which Temporal, what runs it, and its processes (a cluster's; none for start-dev). */
  temporal: { kind: TemporalKind; describe: string; processes: string[] };
  people: { ticketSystems: number; approvers: number };
  outcome: LoadOutcome;
  checks: Checks;
  failures: string[];
  seconds: Record<string, number>;
  load: { before: number[]; after: number[]; cpus: number };
}

function setupOf(run: RunFigures) {
  return {
    seconds: SECONDS,
    connections: CONNECTIONS,
    rateLimitPerMinute: RATE_LIMIT,
    ...run.people,
    submitRate: SUBMIT_RATE,
    voteRate: VOTE_RATE,
    connectionRate: CONNECTION_RATE,
    node: process.version,
  };
}

const votesOf = ({ outcome }: RunFigures) => ({
  sent: outcome.votesSent.length,
  approved: outcome.votesApproved.length,
});

/** A run's figures as JSON: as before the Temporal kinds, with `temporal` added. */
function jsonOf(run: RunFigures) {
  const { routes, roles } = run.outcome;
  const { checks, failures, seconds, load, temporal } = run;
  return {
    benchmark: 'load',
    setup: setupOf(run),
    temporal,
    routes,
    roles,
    votes: votesOf(run),
    checks,
    failures,
    seconds,
    load,
  };
}

function report(run: RunFigures): void {
  const { outcome, checks } = run;
  const setup = setupOf(run);
  const votes = votesOf(run);
  const one = (values: number[]) => values.map((value) => value.toFixed(1)).join(' ');
  process.stdout.write(
    `\nbench:load — Temporal ${run.temporal.describe}\n${CONNECTIONS} connections (half on each server) for ${outcome.seconds.toFixed(1)} s; ` +
      `${setup.ticketSystems} ticket systems, ${setup.approvers} approvers; ` +
      `${CONNECTION_RATE ? `at most ${CONNECTION_RATE} requests/s per connection` : 'connections as fast as answered'}; rate limit ${RATE_LIMIT ? `${RATE_LIMIT}/min per credential per server` : 'off'}; ` +
      `${run.load.cpus} CPUs, load average (1, 5, 15 min) ${one(run.load.before)} before, ${one(run.load.after)} after\n`,
  );
  console.table(
    outcome.routes.map((route) => ({
      route: route.route,
      answers: route.requests,
      unanswered: route.unanswered,
      'per s': route.perSecond,
      'p50 ms': route.p50Ms ?? '-',
      'p99 ms': route.p99Ms ?? '-',
      '2xx': route.ok,
      'rate-limited (429)': route.rateLimited,
      errors:
        Object.entries(route.errors)
          .map(([status, count]) => `${count} × ${status}`)
          .join(', ') || 0,
    })),
  );
  const lines = [
    ...outcome.roles.map(
      (role) =>
        `${role.role}: ${role.connections} connections, ${role.credentials} credentials; ` +
        `${role.timeouts} timeouts, ${role.connectionErrors} connection errors`,
    ),
    `votes: ${votes.sent} sent, ${votes.approved} approved`,
    `orders: ${checks.created} created during the load, ${checks.listed} listed afterwards; ` +
      `${checks.unanswered} sent without an answer at the end (${checks.unansweredListed} of them became orders)`,
    `bought: ${checks.boughtOnce} of ${checks.toBuy} orders to buy bought once; ${checks.boughtTwice} tickets bought twice; ` +
      `the workers caught up in ${checks.catchUpSeconds} s`,
    `seconds: ${Object.entries(run.seconds)
      .map(([what, seconds]) => `${what} ${seconds}`)
      .join(', ')}`,
    run.failures.length ? `FAILED:\n  ${run.failures.join('\n  ')}` : 'no errors',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
