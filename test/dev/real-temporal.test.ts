/**
 * `mve-orders dev` as a user runs it from a terminal: Temporal's own server (`temporal server start-dev`, installed by
 * tooling/install/python-tools.sh) under dev, on free ports and a data folder of its own. It says which server runs,
 * its SQLite keeps a write-ahead log, its Web UI answers pointed at the API's codec server, an order waiting for
 * approval survives Ctrl-C and a restart and is then bought, and no server outlives dev, whether it stops or is killed.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import type { DevState } from '../../client/cli/dev-state.js';
import { PROJECT_TEMPORAL_CLI } from '../../tooling/dev/temporal-cli.js';
import { runCli } from '../helpers/cli.js';
import { sydneyRequest } from '../helpers/orders.js';
import { removeDevFolder, startDevChild, type CliChild } from './child.js';

const execFileAsync = promisify(execFile);
const START_MS = 240_000; // bundling the workflows and a cold initdb, on a loaded machine
const STOP_MS = 60_000;

/** The processes running with `file` among their arguments: a Temporal server on that database. */
function processesOn(file: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(file);
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
}

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test("dev on Temporal's own server: says so, keeps an open order across Ctrl-C and a restart, and leaves no server behind", async (t) => {
  t.timeout(6 * 60_000);
  const root = await mkdtemp(join(tmpdir(), 'mve-dev-real-'));
  await chmod(root, 0o711); // as root, PostgreSQL runs as the postgres account, which must pass through
  const dataDir = join(root, 'data');
  const dbFile = join(dataDir, 'temporal.db');
  const env = { MVE_DATA_DIR: dataDir };
  const cli = (args: string[], stdin?: string) => runCli(args, { env, ...(stdin !== undefined ? { stdin } : {}) });
  const status = async () => (await cli(['status', 'REAL-1', '--as', 'olga'])).stdout;
  const startDev = (extraEnv: NodeJS.ProcessEnv = {}): Promise<CliChild> =>
    startDevChild(
      ['--temporal-port', '0', '--temporal-ui-port', '0', '--sim-port', '0', '--http-port', '0'],
      { ...env, ...extraEnv },
      START_MS,
    );
  let running: CliChild | undefined;
  try {
    const first = (running = await startDev());
    t.regex(
      first.stdout(),
      /Temporal\s+127\.0\.0\.1:\d+ \(temporal server start-dev: Server 1\.32\.0, CLI at \S*\.tools\/python\/bin\/temporal \(the project's tools\); state in \S+\/temporal\.db, kept across restarts: 0 open workflow runs carried over; log in \S+\/temporal\.log\)/,
    );
    // journal_mode=wal (DURABLE_SQLITE_PRAGMAS): SQLite keeps its write-ahead log beside the database while it runs.
    t.true(existsSync(`${dbFile}-wal`), 'the database has a write-ahead log');
    const state = JSON.parse(await readFile(join(dataDir, 'dev.json'), 'utf8')) as DevState;
    t.regex(state.temporal.uiUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    t.regex(first.stdout(), new RegExp(`Web UI\\s+${state.temporal.uiUrl} `));
    // The Web UI that start-dev serves, its codec server the API's.
    const settings = (await (await fetch(`${state.temporal.uiUrl}/api/v1/settings`)).json()) as {
      Codec: { Endpoint: string };
    };
    t.is(settings.Codec.Endpoint, `${state.http.url}/codec`);
    t.regex(await readFile(join(dataDir, 'temporal.log'), 'utf8'), /Temporal Server:\s+\S+:\d+/);
    for (const file of ['temporal.db', 'temporal.log'])
      t.is((await stat(join(dataDir, file))).mode & 0o777, 0o600, `${file} is the account's alone`);

    // An order that waits for approval (3236.40 AUD is in the team tier).
    const order = JSON.stringify(sydneyRequest('REAL-1', { size: 'MVE 16/64', requestedBy: 'dave' }));
    const submitted = await cli(['submit', '-', '--as', 'ticket-bot'], order);
    t.is(submitted.code, 0, submitted.stderr);
    await until('REAL-1 awaiting approval', async () => (/AWAITING_APPROVAL/.test(await status()) ? true : undefined));
    // Its search attributes as the server indexes them, asked with the temporal CLI.
    const { stdout: counted } = await execFileAsync(PROJECT_TEMPORAL_CLI, [
      'workflow',
      'count',
      '--address',
      state.temporal.address,
      '--query',
      'TicketId = "REAL-1" AND OrderStatus = "AWAITING_APPROVAL"',
    ]);
    t.regex(counted, /Total: 1\b/);

    // Ctrl-C, as a terminal sends it to the whole group: dev stops Temporal after the worker, and exits 0.
    t.is(await first.signalGroup('SIGINT', STOP_MS), 0, first.stderr());
    running = undefined;
    t.regex(
      first.stdout(),
      /stopping \(SIGINT\)\n {2}state file removed\n {2}HTTP API closed\n {2}worker stopped\n {2}order events no longer followed\n {2}API simulator closed\n {2}Temporal closed\n {2}PostgreSQL stopped\nstopped\n$/,
    );
    t.deepEqual(processesOn(dbFile), [], 'no Temporal server left running');

    // Started again, through MVE_TEMPORAL_CLI this time: the order is still there, and is approved and bought.
    const link = join(root, 'temporal-cli');
    await symlink(PROJECT_TEMPORAL_CLI, link);
    const second = (running = await startDev({ MVE_TEMPORAL_CLI: link }));
    t.regex(
      second.stdout(),
      new RegExp(
        `Server 1\\.32\\.0, CLI at ${link} \\(MVE_TEMPORAL_CLI\\); state in \\S+, kept across restarts: 1 open workflow run carried over`,
      ),
    );
    t.regex(await status(), /REAL-1\S*\s+AWAITING_APPROVAL/);
    const approved = await cli(['approve', 'REAL-1', '--rate', '3236.4', '--currency', 'AUD', '--as', 'fiona']);
    t.is(approved.code, 0, approved.stderr);
    // Bought, then followed until the simulator reports it LIVE.
    await until('REAL-1 live', async () => (/REAL-1\S*\s+LIVE/.test(await status()) ? true : undefined));

    // Killed outright, the whole group at once: the server's supervisor stops it as dev goes.
    t.is(await second.signalGroup('SIGKILL', STOP_MS), null);
    running = undefined;
    await until('the Temporal server gone after SIGKILL', () => processesOn(dbFile).length === 0 || undefined);
  } finally {
    await running?.signalGroup('SIGKILL', 10_000);
    await removeDevFolder(root);
  }
});
