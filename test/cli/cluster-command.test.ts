/**
 * `mve-orders cluster` as an operator runs it: a Temporal cluster shaped like production alone, on a data folder of its
 * own. With --json it prints its summary as one line and keeps running; its address answers as a Temporal frontend;
 * a second one on the same folder is refused; Ctrl-C stops every process; and a start asking another history shard
 * count than the cluster was created with is refused, saying why.
 */
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import test from 'ava';
import { runCli } from '../helpers/cli.js';
import { removeDevFolder, spawnCli, type CliChild } from '../dev/child.js';
import { processesWith } from '../helpers/processes.js';

const START_MS = 240_000; // a cold initdb, the cluster's schemas and six processes, on 2 cores
const STOP_MS = 90_000;

interface Summary {
  pid: number;
  address: string;
  version: string;
  historyShards: number;
  postgres: { url: string; embedded: boolean; databases: string[] };
  processes: Array<{ name: string; kind: string; pid: number; grpc: string; metricsUrl: string; logFile: string }>;
  webUi: { url: string; pid: number };
}

const alive = (pid: number) => {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

test('mve-orders cluster --json: serves, is one per folder, stops whole on Ctrl-C, and keeps its shard count', async (t) => {
  t.timeout(8 * 60_000);
  const root = await mkdtemp(join(tmpdir(), 'mve-cluster-command-'));
  await chmod(root, 0o711); // as root, PostgreSQL runs as the postgres account, which must pass through
  const env = { MVE_DATA_DIR: join(root, 'data') };
  const folder = join(root, 'data', 'cluster');
  let running: CliChild | undefined;
  try {
    running = spawnCli(['cluster', '--json', '--port', '0', '--ui-port', '0', '--shards', '4'], env, {
      ownGroup: true,
    });
    const [line] = await running.waitForOutput(/^\{.*\}$/m, START_MS);
    const summary = JSON.parse(line) as Summary;
    t.like(summary, { version: '1.32.2', historyShards: 4 });
    t.like(summary.postgres, { embedded: true, databases: ['temporal', 'temporal_visibility'] });
    t.notRegex(summary.postgres.url, /mve-orders-dev/, 'no password');
    t.deepEqual(
      summary.processes.map((each) => each.name),
      ['frontend-1', 'history-1', 'history-2', 'matching-1', 'matching-2', 'worker-1'],
    );
    t.is(summary.processes[0].grpc, summary.address);
    const pids = [...summary.processes.map((each) => each.pid), summary.webUi.pid];
    t.true(pids.every(alive), 'every process runs');

    const connection = await Connection.connect({ address: summary.address });
    try {
      const info = await connection.workflowService.getClusterInfo({});
      t.like(info, { serverVersion: '1.32.2', historyShardCount: 4 });
    } finally {
      await connection.close();
    }
    t.true((await fetch(summary.webUi.url)).ok, 'the Web UI answers');
    t.regex(await (await fetch(summary.processes[1].metricsUrl)).text(), /^# (HELP|TYPE) /m, 'history-1 metrics');

    const second = await runCli(['cluster', '--port', '0', '--ui-port', '0'], { env });
    t.not(second.code, 0);
    t.regex(second.stderr, new RegExp(`another mve-orders cluster runs on ${folder} \\(pid ${summary.pid}, `));

    // Ctrl-C, as a terminal sends it: every process stops, and the command exits 0.
    t.is(await running.signalGroup('SIGINT', STOP_MS), 0, running.stderr());
    running = undefined;
    t.deepEqual(pids.filter(alive), [], 'no process of it left running');
    t.deepEqual(processesWith(folder), []);

    // The shard count is the cluster's for its life.
    const reshard = await runCli(['cluster', '--port', '0', '--ui-port', '0', '--shards', '16'], { env });
    t.not(reshard.code, 0);
    t.regex(reshard.stderr, /has 4 history shards, set when it was created: the count is fixed for a cluster's life/);
    t.deepEqual(processesWith(folder), [], 'nothing left running after the refusal');
  } finally {
    await running?.signalGroup('SIGKILL', 10_000);
    await removeDevFolder(root);
  }
});
