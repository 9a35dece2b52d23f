import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import type { DevState } from '../../client/cli/dev-state.js';
import { runCli } from '../helpers/cli.js';
import { freePortBelowEphemeral } from '../helpers/ports.js';
import { removeDevFolder, spawnCli } from './child.js';

const DEMO = fileURLToPath(new URL('../../scripts/demo.ts', import.meta.url));
const execFileAsync = promisify(execFile);
const START_MS = 240_000;

// `npm start` then `npm run demo`, as a user runs them: dev as a child process on free ports with its own data
// folder, the demo and the CLI finding its HTTP API and its seeded users' tokens through the state file alone
// (`--as <user>`), then SIGTERM; then a second start that finds the data of the first.
test('dev runs the demo to three bought orders, one escalated by budget, stops cleanly, and a second start reuses its data', async (t) => {
  t.timeout(10 * 60_000); // initdb on first use, bundling, two starts: minutes on a loaded machine
  const root = await mkdtemp(join(tmpdir(), 'mve-dev-'));
  // As root, PostgreSQL runs as the postgres account, which must be able to pass through to its folder.
  await chmod(root, 0o711);
  const dataDir = join(root, 'data');
  const env = { MVE_DATA_DIR: dataDir };
  // Ports below the system's range for port 0: the second start finds the first's free again on a busy machine.
  const chosen: string[] = [];
  for (const flag of ['--temporal-port', '--temporal-ui-port', '--sim-port', '--http-port'])
    chosen.push(flag, String(await freePortBelowEphemeral()));
  const startDev = async (ports = chosen) => {
    const dev = spawnCli(['dev', ...ports], env);
    await dev.waitForOutput(/^ready: /m, START_MS).catch(async (error: unknown) => {
      await dev.stop('SIGKILL', 10_000);
      throw error;
    });
    return dev;
  };
  const stateFile = join(dataDir, 'dev.json');
  try {
    const first = await startDev();
    let firstExit: number | null;
    let firstState: DevState | undefined;
    try {
      t.regex(first.stdout(), /seeded fiona \(finance-approver\), dave \(finance-director\)/);
      t.regex(first.stdout(), /postgres:\*\*\*@127\.0\.0\.1/);
      t.is((await stat(stateFile)).mode & 0o777, 0o600);
      const state = JSON.parse(await readFile(stateFile, 'utf8')) as DevState;
      firstState = state;
      t.regex(first.stdout(), new RegExp(`Temporal\\s+${state.temporal.address}`));
      t.regex(state.http.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      t.regex(first.stdout(), new RegExp(`HTTP API\\s+${state.http.url}`));
      const { users } = state;
      t.deepEqual(
        users.map((user) => [user.id, user.roles.join(',')]),
        [
          ['alice', 'requester'],
          ['fiona', 'finance-approver'],
          ['dave', 'finance-director'],
          ['olga', 'ops'],
          ['ticket-bot', 'ticket-system'],
        ],
      );
      for (const user of users) t.regex(user.token, /^mvo_[a-z0-9]+_\S+$/, user.id);

      const demo = await execFileAsync(process.execPath, ['--import', 'tsx', DEMO], {
        env: { ...process.env, ...env },
        timeout: START_MS,
      }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`demo failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
      });
      t.regex(demo.stdout, /demo: all three orders LIVE, one escalated by its team's budget/);
      const timelines = demo.stdout.split(/\n(?=DEMO-\S+: )/).slice(1);
      t.is(timelines.length, 3, demo.stdout);
      const [auto, approved] = timelines as [string, string];
      t.regex(auto, /^DEMO-\S+-AUTO: LIVE at 809\.10 AUD/);
      t.regex(auto, /BOUGHT[\s\S]*PROVISIONING[\s\S]*LIVE/);
      t.notRegex(auto, /AWAITING_APPROVAL/);
      t.regex(approved, /^DEMO-\S+-APPROVAL: LIVE at 3236\.40 AUD/);
      t.regex(approved, /AWAITING_APPROVAL[\s\S]*APPROVED\s+fiona/);
      t.regex(demo.stdout, /HISTORY EVENTS\s+HISTORY JSON BYTES\s+API CALLS/);
      t.regex(demo.stdout, /fiona's inbox: DEMO-\S+-APPROVAL/);
      t.regex(demo.stdout, /dave's inbox: DEMO-\S+-BUDGET \(tier "finance"/);
      t.regex(demo.stdout, /AWAITING_APPROVAL .* would take team lab over its budget for new commitments this month/);
      t.regex(
        demo.stdout,
        /the auto-approved order took \d+\.\d\d s from submit to BOUGHT, and the provider had it LIVE \d+\.\d\d s after/,
      );

      // Any order command finds the running dev's API without environment variables; --as says who is asking.
      const listed = await runCli(['orders', '--status', 'LIVE', '--json', '--as', 'olga'], { env });
      t.is(listed.code, 0, listed.stderr);
      const bought = (
        JSON.parse(listed.stdout) as { orders: Array<{ ticketId: string; requestedBy: string; submittedBy: string }> }
      ).orders;
      t.is(bought.length, 3);
      t.true(bought.every((order) => order.requestedBy === 'alice' && order.submittedBy === 'alice'));
      const shown = await runCli(['status', bought[0].ticketId, '--as', 'alice'], { env });
      t.is(shown.code, 0, shown.stderr);
      t.regex(shown.stdout, /LIVE/);
      t.regex(shown.stdout, /policy\s+\S+ \(sha256 [0-9a-f]{12}\)/);
      const nobody = await runCli(['status', bought[0].ticketId], { env });
      t.is(nobody.code, 2);
      t.regex(nobody.stderr, /--as <user>.*alice \(requester\), fiona \(finance-approver\)/);
    } finally {
      firstExit = await first.stop('SIGTERM', 60_000);
    }
    t.is(firstExit, 0, first.stderr());
    t.regex(first.stdout(), /stopping \(SIGTERM\)\n( {2}.*\n)+ {2}PostgreSQL stopped\nstopped\n$/);
    const statusAfter = await runCli(['status', 'X', '--as', 'alice'], { env });
    t.is(statusAfter.code, 2);
    t.regex(statusAfter.stderr, /npm start/);

    const codecKey = await readFile(join(dataDir, 'codec-key.json'), 'utf8');
    // No ports given: the last start's, so what was saved from it (URLs, tokens) still works.
    const second = await startDev([]);
    try {
      t.regex(second.stdout(), /approvers\s+kept as they are/);
      t.is(await readFile(join(dataDir, 'codec-key.json'), 'utf8'), codecKey);
      const state = JSON.parse(await readFile(stateFile, 'utf8')) as DevState;
      t.is(state.http.url, firstState?.http.url, 'the HTTP API where it was');
      t.is(state.temporal.address, firstState?.temporal.address, 'Temporal where it was');
      t.deepEqual(state.users, firstState?.users, "the seeded users' tokens kept");
      const [alice] = state.users;
      const me = await fetch(`${state.http.url}/api/v1/me`, { headers: { authorization: `Bearer ${alice.token}` } });
      t.is(me.status, 200, 'a token saved from the first start is still good');
      const whileRunning = await runCli(['dev', '--reset'], { env });
      t.is(whileRunning.code, 2);
      t.regex(whileRunning.stderr, /is running on .*: stop it \(Ctrl-C\) before --reset/);
    } finally {
      t.is(await second.stop('SIGTERM', 60_000), 0, second.stderr());
    }
    const reset = await runCli(['dev', '--reset'], { env });
    t.is(reset.code, 0, reset.stderr);
    t.true(reset.stdout.includes(`removed:\n  ${dataDir}\n`), reset.stdout);
    t.false(existsSync(dataDir), 'the data folder is gone');
    t.regex((await runCli(['dev', '--reset'], { env })).stdout, /^nothing to remove$/m);
  } finally {
    await removeDevFolder(root);
  }
});
