/**
 * What the budget check costs as a team's records grow (docs/approval-policy.md, "What the check costs"): on an
 * embedded PostgreSQL, a team holds N bought orders whose terms run and a few approved, not bought, recorded through
 * the repository as the workflow records them. Measured per N: the commitment (`commitBudget`: the team's lock, its
 * standing, the decision and the write) one at a time, the preview (`budgetStanding`), and 20 commitments at once on
 * the same team (they queue on its lock) and on 20 other teams of the same environment (no record of their own).
 *
 *   npm run bench:budget                              N = 0, 1,000 and 10,000
 *   npm run bench:budget -- --sizes 0,5000 --samples 50 --json
 */
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { OrderState } from '../domain/lifecycle/index.js';
import { connectDatabase, createRepository, runMigrations, type Repository, type Sql } from '../infra/db/index.js';
import { startEmbeddedPostgres } from '../tooling/dev/embedded-postgres.js';
import { percentile, pool } from './stats.js';

const HELP = `npm run bench:budget -- [--sizes 0,1000,10000] [--samples 100] [--json]
  --sizes    the team's bought orders whose terms run, one round per size (default 0,1000,10000)
  --samples  commitments and previews timed one at a time per size (default 100)
  --json     the figures as JSON on stdout, not a table
Progress goes to stderr.`;

const ENVIRONMENT = 'production';
const TEAM = 'network';
const CURRENCY = 'AUD';
const TIME_ZONE = 'Australia/Sydney';
/** A budget the bench never reaches: every check reads the standing and commits. */
const CHECK = { timeZone: TIME_ZONE, budget: { monthlyNew: 1e12, runRateCap: 1e12 } };
const APPROVED_NOT_BOUGHT = 5;
const CONCURRENT = 20;
/** Orders seeded at once: the repository's calls, a few connections busy. */
const SEED_CONCURRENCY = 8;

/** As the workflow moves them (test/helpers/commitments.ts records the same paths). */
const BOUGHT_PATH: OrderState[] = ['LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT'];
const APPROVED_PATH: OrderState[] = ['LOOKING_UP', 'VALIDATING', 'AWAITING_APPROVAL', 'APPROVED'];
const AWAITING_PATH: OrderState[] = ['LOOKING_UP', 'VALIDATING', 'AWAITING_APPROVAL'];

export interface SizeFigures {
  runningOrders: number;
  commitP50Ms: number;
  commitP99Ms: number;
  previewP50Ms: number;
  previewP99Ms: number;
  sameTeamTotalMs: number;
  sameTeamCommitsPerSecond: number;
  otherTeamsTotalMs: number;
  otherTeamsCommitsPerSecond: number;
}

const progress = (line: string) => process.stderr.write(`${line}\n`);
const round = (ms: number) => Number(ms.toFixed(2));
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

/** Records one order along `path` as the workflow does, with its commitment where its path approves it. */
async function seedOrder(
  repository: Repository,
  order: { ticketId: string; team: string; path: OrderState[]; approvedAt: string; boughtAt?: string },
): Promise<string> {
  const workflowId = `mve-order-${order.ticketId}`;
  await repository.recordOrderReceived({
    workflowId,
    ticketId: order.ticketId,
    environment: ENVIRONMENT,
    requestedBy: 'alice',
    request: { ticketId: order.ticketId, term: 12 },
    team: order.team,
    at: daysAgo(3),
  });
  await repository.recordQuote({
    workflowId,
    quoteNumber: 1,
    monthlyRate: '1618.2',
    currency: CURRENCY,
    quotedAt: order.approvedAt,
  });
  const bought = new Set<OrderState>(['BUYING', 'BOUGHT']);
  await repository.recordTransitions(
    order.path.map((to, index) => ({
      workflowId,
      sequence: index + 1,
      from: index === 0 ? 'RECEIVED' : order.path[index - 1],
      to,
      actor: 'engine',
      at: bought.has(to) ? order.boughtAt! : order.approvedAt,
    })),
  );
  // Recorded as it was approved, unchecked (as test/helpers/commitments.ts does): a check here would read the
  // standing once per seeded order, and seeding would grow with the square of N.
  if (order.path.includes('APPROVED')) await commit(repository, workflowId, order.team, { at: order.approvedAt });
  return workflowId;
}

/** The approval's commitment, checked against the team's budget (the worker's call) unless recorded `at` a past moment. */
function commit(repository: Repository, workflowId: string, team: string, past?: { at: string }) {
  return repository.commitBudget(
    {
      workflowId,
      environment: ENVIRONMENT,
      team,
      currency: CURRENCY,
      monthlyRate: 1618.2,
      tier: null,
      check: past ? null : CHECK,
      at: past?.at,
    },
    () => ({ commit: true, overBudget: false, fit: null }),
  );
}

/** Empties the tables the orders live in (their events, quotes and commitments follow by cascade). */
async function clearOrders(sql: Sql): Promise<void> {
  await sql`TRUNCATE orders CASCADE`;
}

/** The team's N running orders and a few approved, not bought; an order awaiting approval per committer. */
async function seedSize(repository: Repository, size: number): Promise<{ same: string[]; others: string[] }> {
  const started = performance.now();
  await pool(size + APPROVED_NOT_BOUGHT, SEED_CONCURRENCY, async (index) => {
    const running = index < size;
    await seedOrder(repository, {
      ticketId: `RUN-${index}`,
      team: TEAM,
      path: running ? BOUGHT_PATH : APPROVED_PATH,
      approvedAt: daysAgo(running ? 2 : 1),
      boughtAt: running ? daysAgo(1) : undefined,
    });
    if (index > 0 && index % 2000 === 0) progress(`  seeded ${index} orders`);
  });
  const awaiting = (ticketId: string, team: string) =>
    seedOrder(repository, { ticketId, team, path: AWAITING_PATH, approvedAt: daysAgo(0) });
  const same = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => awaiting(`SAME-${i}`, TEAM)));
  const others = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => awaiting(`OTHER-${i}`, `team-${i}`)));
  progress(`  seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { same, others };
}

/** p50 and p99 of `samples` runs of `task`, one at a time. */
async function timeEach(samples: number, task: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const durations: number[] = [];
  for (let index = 0; index < samples; index += 1) {
    const started = performance.now();
    await task();
    durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  return { p50: round(percentile(durations, 50)), p99: round(percentile(durations, 99)) };
}

/** All of `tasks` at once: the total time, and commitments per second. */
async function timeTogether(tasks: Array<() => Promise<unknown>>): Promise<{ totalMs: number; perSecond: number }> {
  const started = performance.now();
  await Promise.all(tasks.map((task) => task()));
  const totalMs = performance.now() - started;
  return { totalMs: round(totalMs), perSecond: round((tasks.length / totalMs) * 1000) };
}

async function measureSize(sql: Sql, repository: Repository, size: number, samples: number): Promise<SizeFigures> {
  progress(`N = ${size}: seeding …`);
  await clearOrders(sql);
  const { same, others } = await seedSize(repository, size);
  await sql`ANALYZE`;
  // Warm: the plans cached and the pages read once, as a running worker has them.
  await timeEach(5, () => commit(repository, same[0], TEAM));
  progress(`N = ${size}: timing …`);
  const commits = await timeEach(samples, () => commit(repository, same[0], TEAM));
  const previews = await timeEach(samples, () =>
    repository.budgetStanding({
      workflowId: same[0],
      environment: ENVIRONMENT,
      team: TEAM,
      currency: CURRENCY,
      ...CHECK,
    }),
  );
  const sameTeam = await timeTogether(same.map((id) => () => commit(repository, id, TEAM)));
  const otherTeams = await timeTogether(others.map((id, i) => () => commit(repository, id, `team-${i}`)));
  return {
    runningOrders: size,
    commitP50Ms: commits.p50,
    commitP99Ms: commits.p99,
    previewP50Ms: previews.p50,
    previewP99Ms: previews.p99,
    sameTeamTotalMs: sameTeam.totalMs,
    sameTeamCommitsPerSecond: sameTeam.perSecond,
    otherTeamsTotalMs: otherTeams.totalMs,
    otherTeamsCommitsPerSecond: otherTeams.perSecond,
  };
}

function parseOptions(): { sizes: number[]; samples: number; json: boolean } | null {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '0,1000,10000' },
      samples: { type: 'string', default: '100' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return null;
  const sizes = values.sizes.split(',').map(Number);
  if (sizes.some((size) => !Number.isInteger(size) || size < 0))
    throw new Error(`--sizes: must be whole numbers ≥ 0, separated by commas, e.g. 0,1000; got ${values.sizes}`);
  const samples = Number(values.samples);
  if (!Number.isInteger(samples) || samples < 1)
    throw new Error(`--samples: must be a whole number ≥ 1; got ${values.samples}`);
  return { sizes, samples, json: values.json };
}

function printTable(figures: SizeFigures[], samples: number): void {
  process.stdout.write(
    `Budget check (commitBudget: lock, standing, write) on embedded PostgreSQL; ${samples} samples one at a time,` +
      ` ${CONCURRENT} at once on one team and on ${CONCURRENT} teams:\n`,
  );
  console.table(figures);
  const first = figures[0];
  const last = figures.at(-1)!;
  if (figures.length > 1)
    process.stdout.write(
      `Baseline in this run: a commit at N=${last.runningOrders} takes ${(last.commitP50Ms / first.commitP50Ms).toFixed(1)}× ` +
        `its time at N=${first.runningOrders} (p50 ${last.commitP50Ms} ms vs ${first.commitP50Ms} ms).\n`,
    );
}

export async function runBudgetBench(): Promise<void> {
  const options = parseOptions();
  if (!options) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const dataDir = path.join(tmpdir(), `mve-bench-budget-pg-${process.pid}`);
  const postgres = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  const sql = connectDatabase(postgres.url, { maxConnections: CONCURRENT * 2 + 2 });
  try {
    await runMigrations(sql);
    const repository = createRepository(sql);
    const figures: SizeFigures[] = [];
    for (const size of options.sizes) figures.push(await measureSize(sql, repository, size, options.samples));
    if (options.json) process.stdout.write(`${JSON.stringify({ samples: options.samples, figures }, null, 2)}\n`);
    else printTable(figures, options.samples);
  } finally {
    await sql.end({ timeout: 5 });
    await postgres.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runBudgetBench();
