/**
 * `mve-orders dev --temporal cluster` as a user runs it from a terminal: Temporal as a cluster shaped like production
 * (tooling/temporal/cluster, built first when missing), on free ports and a data folder of its own. Its summary lists
 * every process, an order runs to LIVE on it, Ctrl-C stops every process of it, a switch to start-dev is refused while
 * an order is open on the cluster, and a second start on the cluster finds that order and buys it.
 */
import { chmod, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import type { DevState } from '../../client/cli/dev-state.js';
import { runCli } from '../helpers/cli.js';
import { sydneyRequest } from '../helpers/orders.js';
import { removeDevFolder, spawnCli, startDevChild, type CliChild } from './child.js';
import { processesWith } from '../helpers/processes.js';

const START_MS = 300_000; // a cold initdb, the cluster's schemas and six processes, bundling the workflows, on 2 cores
const STOP_MS = 90_000;
const PROCESSES = ['frontend-1', 'history-1', 'history-2', 'matching-1', 'matching-2', 'worker-1'];

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test('dev on a Temporal cluster: lists its processes, runs an order to LIVE, stops them all, keeps an open order', async (t) => {
  t.timeout(12 * 60_000);
  const root = await mkdtemp(join(tmpdir(), 'mve-dev-cluster-'));
  await chmod(root, 0o711); // as root, PostgreSQL runs as the postgres account, which must pass through
  const dataDir = join(root, 'data');
  const clusterDir = join(dataDir, 'temporal-cluster');
  const env = { MVE_DATA_DIR: dataDir };
  const cli = (args: string[], stdin?: string) => runCli(args, { env, ...(stdin !== undefined ? { stdin } : {}) });
  const stateOf = async (ticket: string) => (await cli(['status', ticket, '--as', 'olga'])).stdout;
  const reaches = (ticket: string, state: string) =>
    until(`${ticket} ${state}`, async () => new RegExp(`${ticket}\\S*\\s+${state}\\b`).test(await stateOf(ticket)));
  const ports = ['--temporal-port', '0', '--temporal-ui-port', '0', '--sim-port', '0', '--http-port', '0'];
  const startDev = (kind: string) => startDevChild(['--temporal', kind, ...ports], env, START_MS);
  let running: CliChild | undefined;
  try {
    const first = (running = await startDev('cluster'));
    t.regex(
      first.stdout(),
      /Temporal\s+127\.0\.0\.1:\d+ \(a Temporal cluster: Server 1\.32\.2 built from go\.temporal\.io\/server, 6 processes, 16 history shards; state in the embedded PostgreSQL, databases temporal and temporal_visibility, kept across restarts: 0 open workflow runs carried over; config and logs in \S+temporal-cluster\)/,
    );
    for (const name of PROCESSES)
      t.regex(
        first.stdout(),
        new RegExp(
          `^ {16}${name} +pid \\d+ +gRPC 127\\.0\\.0\\.1:\\d+ +metrics http://127\\.0\\.0\\.1:\\d+/metrics  log \\S+/temporal-cluster/${name}\\.log$`,
          'm',
        ),
      );
    const state = JSON.parse(await readFile(join(dataDir, 'dev.json'), 'utf8')) as DevState;
    t.is(state.temporal.kind, 'cluster');
    // Temporal's Web UI server behind dev's front, decoding through the API's codec server with the console's sign-in.
    const settings = (await (await fetch(`${state.temporal.uiUrl}/api/v1/settings`)).json()) as {
      Codec: { Endpoint: string; IncludeCredentials: boolean };
    };
    t.like(settings.Codec, { Endpoint: `${state.http.url}/codec`, IncludeCredentials: true });

    // Auto-approved (809.10 AUD), bought and followed to LIVE; then one that waits for approval (team tier).
    const live = JSON.stringify(sydneyRequest('CLUSTER-1'));
    t.is((await cli(['submit', '-', '--as', 'ticket-bot'], live)).code, 0);
    await reaches('CLUSTER-1', 'LIVE');
    const waiting = JSON.stringify(sydneyRequest('CLUSTER-2', { size: 'MVE 16/64', requestedBy: 'dave' }));
    t.is((await cli(['submit', '-', '--as', 'ticket-bot'], waiting)).code, 0);
    await reaches('CLUSTER-2', 'AWAITING_APPROVAL');

    // Ctrl-C, as a terminal sends it to the whole group: dev stops the cluster after the worker, and exits 0.
    t.true(processesWith(clusterDir).length >= PROCESSES.length + 1, 'the six processes and the Web UI server run');
    t.is(await first.signalGroup('SIGINT', STOP_MS), 0, first.stderr());
    running = undefined;
    t.regex(
      first.stdout(),
      /\n {2}API simulator closed\n {2}Temporal cluster stopped\n {2}PostgreSQL stopped\nstopped\n$/,
    );
    t.deepEqual(processesWith(clusterDir), [], 'no process of the cluster left running');

    // start-dev keeps its state apart: the open order would be stranded, so the switch is refused.
    const refused = spawnCli(['dev', '--temporal', 'start-dev', ...ports], env, { ownGroup: true });
    const code = await new Promise((resolve) => refused.child.once('exit', resolve));
    t.not(code, 0);
    t.regex(
      refused.stderr(),
      /last dev ran Temporal as cluster, and 1 open order ran there: CLUSTER-2 \(AWAITING_APPROVAL\)/,
    );
    t.regex(refused.stderr(), /`npx mve-orders dev --temporal cluster`/);

    // Started again on the cluster: the order is there, and is approved and bought.
    const second = (running = await startDev('cluster'));
    t.regex(second.stdout(), /kept across restarts: 1 open workflow run carried over/);
    const approved = await cli(['approve', 'CLUSTER-2', '--rate', '3236.4', '--currency', 'AUD', '--as', 'fiona']);
    t.is(approved.code, 0, approved.stderr);
    await reaches('CLUSTER-2', 'BOUGHT|PROVISIONING|LIVE');
    t.is(await second.signalGroup('SIGINT', STOP_MS), 0, second.stderr());
    running = undefined;
    t.deepEqual(processesWith(clusterDir), []);
  } finally {
    await running?.signalGroup('SIGKILL', 10_000);
    await removeDevFolder(root);
  }
});
