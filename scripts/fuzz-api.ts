/**
 * `npm run fuzz:api`: fuzzes the HTTP API from its own OpenAPI document with schemathesis, bounded in time.
 *
 * Starts the whole engine on loopback, as `mve-orders dev` does (embedded PostgreSQL, Temporal's own server `temporal
 * server start-dev`, the API simulator, a worker, and the API with its real authenticator), in a scratch folder
 * removed afterwards; issues real API tokens (a ticket system; ops with an approver role); seeds orders (one bought,
 * two awaiting approval) for the fuzzer's ticket ids to hit now and then, and their quote for its votes; then runs
 * `st run <url>/openapi.json` once per token. It fails when any answer is a 5xx, is undocumented or does not match
 * its documented shape (error bodies included), when a request the document calls invalid is accepted, or when a
 * route answers without a credential.
 *
 *   bash tooling/install/python-tools.sh    # once: schemathesis and the temporal CLI into .tools/python
 *   npm run fuzz:api [-- --max-time 75 --max-examples 50 --seed N --verbose]
 *
 * --max-time is each caller's budget in seconds (the run takes about twice it, plus ~20 s to start the engine);
 * --max-examples bounds each operation's examples per round. Prints a summary (operations, test cases, requests
 * by status class, failures, time) and exits 0 when nothing failed, 1 when something did, 2 when it could not run.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startDev, type RunningDev } from '../tooling/dev/index.js';
import { issueApiToken } from '../client/http/index.js';
import { ApiCallError, OrdersApiClient } from '../client/http-client/index.js';
import { createRepository, openDatabase } from '../infra/db/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCHEMATHESIS = process.env['SCHEMATHESIS'] ?? path.join(ROOT, '.tools/python/bin/st');

const { values } = parseArgs({
  options: {
    'max-time': { type: 'string', default: '75' },
    'max-examples': { type: 'string', default: '50' },
    seed: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});

/**
 * What every answer is checked for. Left out: positive_data_acceptance (valid-looking requests are refused by
 * state all the time: 404 no such order, 409 not awaiting approval), missing_required_header and
 * unsupported_method (fastify answers an unknown method with 404, not 405), and the checks that need the
 * document's links or several users' objects.
 */
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'ignored_auth',
];

/**
 * The API's own routes. The same server serves the web console (HTML pages, cookie sessions), whose routes the
 * document lists too; they are no part of the API fuzzed here.
 */
const API_PATHS = '^/(api/|codec/|healthz$|readyz$|metrics$)';

/** The callers the fuzzer acts as, each with a token of its own. */
const CALLERS = [
  { name: 'ticket-system', owner: 'fuzz-ticket-bot', roles: ['ticket-system'] },
  { name: 'ops', owner: 'fuzz-olga', roles: ['ops', 'finance-approver'] },
] as const;

/**
 * Seeded orders, for a person of the directory `mve-orders dev` seeds; Sydney, 12 months: the default staging policy
 * buys the first at once and holds the others for approval. Votes go to FUZZ-WAITING, cancels elsewhere. The ops
 * caller is no approver of the directory, so the workflow refuses its votes and the order keeps waiting; it is the
 * requester's own, so the ticket system's run cannot see it, nor cancel it from the list it is shown.
 */
const REQUESTER = { name: 'requester', owner: 'dave', roles: ['requester'] } as const;
const SEEDS = [
  // Bought, then followed until the simulator reports it LIVE.
  { ticketId: 'FUZZ-LIVE', size: 'MVE 4/16', state: 'LIVE', by: 'ticket-system' },
  { ticketId: 'FUZZ-WAITING', size: 'MVE 16/64', state: 'AWAITING_APPROVAL', by: 'requester' },
  { ticketId: 'FUZZ-CANCEL', size: 'MVE 16/64', state: 'AWAITING_APPROVAL', by: 'ticket-system' },
] as const;
const VOTED_ON = 'FUZZ-WAITING';

/** What the codec server's wildcard path (`/codec/{*}`) answers besides 404. */
const CODEC_OPERATIONS = ['decode', 'encode', 'default/decode', 'default/encode'];

const progress = (line: string) => process.stderr.write(`fuzz:api: ${line}\n`);

interface RunFigures {
  caller: string;
  exitCode: number;
  /**
   * From schemathesis' JSON report: operations tested, test cases generated, test cases that failed a check,
   * distinct failures.
   */
  operations: number;
  testCases: number;
  failingCases: number;
  failures: number;
  /** Requests the API answered during the run, by status class (the API's own counter, /metrics). */
  answered: Record<string, number>;
  seconds: number;
}

async function main(): Promise<number> {
  if (!existsSync(SCHEMATHESIS)) {
    progress(`schemathesis is not installed (${SCHEMATHESIS}); run: bash tooling/install/python-tools.sh`);
    return 2;
  }
  const started = Date.now();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'mve-fuzz-api-'));
  const serverLog: string[] = [];
  let dev: RunningDev | undefined;
  try {
    // Always dev's own parts: a fuzz run must never write into a real database, cluster or ordering API.
    // No rate limits: the fuzzing sends thousands of requests a minute under one credential, and many without one
    // (ignored_auth), and would meet only 429s (test/http/rate-limit.test.ts holds the limits themselves).
    const env: NodeJS.ProcessEnv = { ...process.env, MVE_RATE_LIMIT: '0', MVE_RATE_LIMIT_AUTH_FAILURES: '0' };
    for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'MVE_API_BASE_URL']) delete env[name];
    dev = await startDev({
      env,
      dataDir,
      temporalPort: 0,
      temporalUiPort: 0,
      simulatorPort: 0,
      httpPort: 0,
      log: (line) => {
        serverLog.push(line);
        if (values.verbose) progress(line);
      },
    });
    const url = dev.state.http.url;
    const tokens = await issueTokens(dev.state.databaseUrl);
    const quote = await seedOrders(url, tokens);
    progress(`engine up and orders seeded in ${seconds(started)} s; API at ${url}`);

    const runs: RunFigures[] = [];
    for (const caller of CALLERS) {
      const config = path.join(dataDir, `schemathesis-${caller.name}.toml`);
      await writeFile(config, schemathesisConfig(quote));
      runs.push(await fuzzAs(caller.name, tokens[caller.name], url, config, dataDir));
    }
    if (values.verbose) {
      // Where the requests went: the API's counter by route and status.
      const metrics = await (await fetch(`${url}/metrics`)).text();
      for (const line of metrics.split('\n').filter((line) => line.startsWith('mve_api_requests_total{'))) {
        progress(line.replace('mve_api_requests_total', ''));
      }
    }
    return report(runs, serverLog, started);
  } finally {
    await dev?.stop().catch((error: unknown) => progress(`while stopping: ${(error as Error).message}`));
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Real API tokens, made as `mve-orders tokens create` makes them. */
async function issueTokens(databaseUrl: string): Promise<Record<string, string>> {
  const sql = await openDatabase(databaseUrl, { maxConnections: 1 });
  try {
    const repository = createRepository(sql);
    const tokens: Record<string, string> = {};
    for (const caller of [...CALLERS, REQUESTER]) {
      const issued = await issueApiToken(repository, {
        owner: caller.owner,
        roles: [...caller.roles],
        description: 'npm run fuzz:api',
      });
      tokens[caller.name] = issued.token;
    }
    return tokens;
  } finally {
    await sql.end();
  }
}

/**
 * The seeded orders, submitted through the API (by the ticket system for the requester, or by the requester) and
 * watched as ops until each is where it stays; answers the quote of the order the votes go to.
 */
async function seedOrders(
  url: string,
  tokens: Record<string, string>,
): Promise<{ monthlyRate: number; currency: string }> {
  const example = JSON.parse(readFileSync(path.join(ROOT, 'examples/k09-license-file-firewall.json'), 'utf8')) as {
    [key: string]: unknown;
  };
  const clients = new Map<string, OrdersApiClient>();
  const as = (name: string) => {
    if (!clients.has(name)) clients.set(name, new OrdersApiClient({ url, token: tokens[name] }));
    return clients.get(name)!;
  };
  try {
    for (const seed of SEEDS) {
      await as(seed.by).submit({ ...example, ticketId: seed.ticketId, size: seed.size, requestedBy: REQUESTER.owner });
    }
    const deadline = Date.now() + 60_000;
    let quote: { monthlyRate: number; currency: string } | undefined;
    for (const seed of SEEDS) {
      for (;;) {
        // Until its first step has run, an order answers 409 NOT_STARTED.
        const order = await as('ops')
          .get(seed.ticketId)
          .catch((error: unknown) => {
            if (error instanceof ApiCallError && error.code === 'NOT_STARTED') return undefined;
            throw error;
          });
        if (order?.state === seed.state) {
          if (seed.ticketId === VOTED_ON && order.quote) quote = order.quote;
          break;
        }
        if (Date.now() > deadline) {
          throw new Error(`seeded order ${seed.ticketId} is ${order?.state ?? 'not started'}, not ${seed.state}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    if (!quote) throw new Error(`seeded order ${VOTED_ON} has no quote`);
    return quote;
  } finally {
    for (const client of clients.values()) client.close();
  }
}

/**
 * schemathesis.toml: the caller's token from the environment (never the command line), and dictionaries that make
 * some requests name real things: the seeded tickets, the codec's operations, and the quote the votes name.
 */
function schemathesisConfig(quote: { monthlyRate: number; currency: string }): string {
  const toml = (value: unknown) => JSON.stringify(value);
  const tickets = SEEDS.map((seed) => seed.ticketId);
  return [
    'headers = { Authorization = "Bearer ${FUZZ_API_TOKEN}" }',
    '',
    '[dictionaries.tickets]',
    `values = ${toml(tickets)}`,
    '[dictionaries.voted-on]',
    `values = ${toml([VOTED_ON])}`,
    '[dictionaries.cancellable]',
    `values = ${toml(tickets.filter((ticket) => ticket !== VOTED_ON))}`,
    '[dictionaries.codec]',
    `values = ${toml(CODEC_OPERATIONS)}`,
    '[dictionaries.rate]',
    `values = ${toml([quote.monthlyRate])}`,
    '[dictionaries.currency]',
    `values = ${toml([quote.currency])}`,
    '',
    '[parameters]',
    '"path.ticketId" = { dictionary = "tickets", probability = 0.5 }',
    '"path.*" = { dictionary = "codec", probability = 0.5 }',
    '',
    '[[operations]]',
    'include-path-regex = "/(approve|reject)$"',
    '[operations.parameters]',
    '"path.ticketId" = { dictionary = "voted-on", probability = 0.5 }',
    '"body.monthlyRate" = { dictionary = "rate", probability = 0.5 }',
    '"body.currency" = { dictionary = "currency", probability = 0.5 }',
    '',
    '[[operations]]',
    'include-path-regex = "/cancel$"',
    '[operations.parameters]',
    '"path.ticketId" = { dictionary = "cancellable", probability = 0.5 }',
    '',
  ].join('\n');
}

/** One schemathesis run with one caller's token; its figures from its JSON report and the API's counter. */
async function fuzzAs(caller: string, token: string, url: string, config: string, dir: string): Promise<RunFigures> {
  const reportFile = path.join(dir, `schemathesis-${caller}.json`);
  const args = [
    '--config-file',
    config,
    'run',
    `${url}/openapi.json`,
    '--include-path-regex',
    API_PATHS,
    '--checks',
    CHECKS.join(','),
    '--max-examples',
    values['max-examples'],
    '--max-time',
    values['max-time'],
    '--workers',
    '1',
    '--request-timeout',
    '30',
    '--no-color',
    '--report',
    'json',
    '--report-json-path',
    reportFile,
    '--generation-database',
    'none',
    ...(values.seed ? ['--seed', values.seed] : []),
  ];
  progress(`as ${caller}: st ${args.join(' ')}`);
  const before = await answeredSoFar(url);
  const started = Date.now();
  const exitCode = await new Promise<number>((resolve, reject) => {
    const child = spawn(SCHEMATHESIS, args, {
      cwd: dir,
      env: { ...process.env, FUZZ_API_TOKEN: token },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // schemathesis closes with a pytest-style banner ("===== 2 warnings in 30.02s =====") that counts warnings and
    // failures, not tests; CI reads such banners as a test runner's verdict, so it is relayed as a plain line.
    createInterface({ input: child.stdout }).on('line', (line) => {
      const banner = /^=+ (.+ in [\d.]+s) =+$/.exec(line);
      process.stdout.write(`${banner ? `schemathesis: ${banner[1]}` : line}\n`);
    });
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
  const took = seconds(started);
  const after = await answeredSoFar(url);
  const answered = Object.fromEntries(
    Object.entries(after)
      .map(([status, count]) => [status, count - (before[status] ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );
  const figures = existsSync(reportFile)
    ? (JSON.parse(readFileSync(reportFile, 'utf8')) as SchemathesisReport)
    : undefined;
  return {
    caller,
    exitCode,
    operations: figures?.operations?.tested ?? 0,
    testCases: figures?.test_cases?.generated ?? 0,
    failingCases: figures?.test_cases?.with_failures ?? 0,
    failures: figures?.test_cases?.unique_failures ?? 0,
    answered,
    seconds: took,
  };
}

/** What this uses of schemathesis' JSON report (`--report json`). */
interface SchemathesisReport {
  operations?: { tested?: number } | null;
  test_cases?: { generated?: number; with_failures?: number; unique_failures?: number };
}

/**
 * Requests the API has answered, by status class ("2xx", "4xx", "5xx"), from its own counter
 * (mve_api_requests_total), less the scrapes of /metrics.
 */
async function answeredSoFar(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^mve_api_requests_total\{([^}]*)\} (\d+)$/gm)) {
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((label) => [label[1], label[2]]));
    if (labels['route'] === '/metrics') continue;
    const status = `${(labels['status'] ?? '?').charAt(0)}xx`;
    counts[status] = (counts[status] ?? 0) + Number(match[2]);
  }
  return counts;
}

/** The summary; 0 when every run passed and the API answered no 5xx, else 1. */
function report(runs: RunFigures[], serverLog: string[], started: number): number {
  const sum = (counts: Record<string, number>) => Object.values(counts).reduce((total, count) => total + count, 0);
  const failed = runs.filter((run) => run.exitCode !== 0 || (run.answered['5xx'] ?? 0) > 0);
  process.stdout.write('\nfuzz:api summary\n');
  for (const run of runs) {
    const classes = Object.entries(run.answered)
      .sort()
      .map(([status, count]) => `${count} ${status}`)
      .join(', ');
    process.stdout.write(
      `  as ${run.caller}: ${run.operations} operations, ${run.testCases} test cases, ${sum(run.answered)} requests ` +
        `(${classes}), ${run.failures} failures, ${run.seconds} s` +
        `${run.exitCode === 0 ? '' : ` (schemathesis exit ${run.exitCode})`}\n`,
    );
  }
  // A 500 leaves its stack in the server's log (client/http/errors.ts): the first says where to look.
  const serverErrors = serverLog.filter((line) => line.startsWith('[http] ') && /\n\s+at /.test(line));
  if (serverErrors.length > 0) {
    process.stdout.write(`  the server logged ${serverErrors.length} failures; the first:\n${serverErrors[0]}\n`);
  }
  const requests = runs.reduce((total, run) => total + sum(run.answered), 0);
  const serverAnswers = runs.reduce((total, run) => total + (run.answered['5xx'] ?? 0), 0);
  process.stdout.write(
    `fuzz:api: ${requests} requests, ${serverAnswers} answered 5xx, ${seconds(started)} s in all` +
      `${failed.length === 0 ? '' : `; FAILED as ${failed.map((run) => run.caller).join(', ')}`}\n`,
  );
  // The closing line in the plain form CI reads: test cases; a run that failed without a failing case counts one.
  const failing = runs.reduce((total, run) => total + Math.max(run.failingCases, failed.includes(run) ? 1 : 0), 0);
  const passing = runs.reduce((total, run) => total + run.testCases - run.failingCases, 0);
  process.stdout.write(`fuzz: ${passing} passed, ${failing} failed\n`);
  return failed.length === 0 ? 0 : 1;
}

const seconds = (since: number) => Math.round((Date.now() - since) / 1000);

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    progress(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(2);
  },
);
