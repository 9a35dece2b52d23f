/**
 * Where Temporal's work goes, by operation, on each kind: one-activity workflows (bench/one-activity.ts) run at a
 * concurrency on a fresh start-dev and on a fresh cluster (bench/temporal.ts), and Temporal's own counters (each
 * process's /metrics) read around them: per workflow, each persistence operation's requests and mean latency, each
 * call one service made to another, and the waits of a history shard's writes for their turn, with the history shards
 * each process owns. bench:orders prints the sums;
 * this says which operations make them.
 *
 *   node --import tsx bench/temporal-ops.ts                       both kinds, 500 workflows at concurrency 50
 *   node --import tsx bench/temporal-ops.ts --temporal cluster --workflows 1000 --concurrency 100
 */
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { runOneActivityWorkflows, startOneActivityWorker } from './one-activity.js';
import { TEMPORAL_OPTION_HELP, temporalKinds, type TemporalKind } from './temporal-choice.js';
import { startBenchServer } from './temporal.js';

const USAGE = `node --import tsx bench/temporal-ops.ts [options]
  ${TEMPORAL_OPTION_HELP} (default here: both)
  --workflows <n>         one-activity workflows measured (default 500), after as many to warm up
  --concurrency <n>       kept in flight (default 50)`;

/** `persistence_requests` and the like, summed per service and operation. */
type Counters = Map<string, number>;

/** Each kind of work: the metric that counts it, the one that sums its seconds. */
const KINDS = {
  persistence: ['persistence_requests', 'persistence_latency_sum'],
  call: ['client_requests', 'client_latency_sum'],
  /** a history shard's writes wait their turn: one at a time per shard */
  'shard queue': ['semaphore_latency_count', 'semaphore_latency_sum'],
} as const;

const COUNTED = new RegExp(`^(${Object.values(KINDS).flat().join('|')})\\{(.*)\\} (\\S+)$`);

async function readCounters(urls: string[]): Promise<Counters> {
  const counters: Counters = new Map();
  for (const url of urls)
    for (const line of (await fetch(url).then((answer) => answer.text())).split('\n')) {
      const match = COUNTED.exec(line);
      if (!match) continue;
      const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(match[2])?.[1] ?? '';
      const key = `${match[1]}|${label('service_name')}|${label('operation')}`;
      counters.set(key, (counters.get(key) ?? 0) + Number(match[3]));
    }
  return counters;
}

async function measure(kind: TemporalKind, workflows: number, concurrency: number): Promise<void> {
  const server = await startBenchServer({ kind, sqlite: 'tuned', log: () => undefined });
  try {
    const worker = await startOneActivityWorker(server.address);
    const connection = await Connection.connect({ address: server.address });
    try {
      const client = new Client({ connection, namespace: 'default' });
      await runOneActivityWorkflows(client, concurrency, workflows, 'warm');
      const before = await readCounters(server.metrics.metricsUrls);
      const figures = await runOneActivityWorkflows(client, concurrency, workflows, 'measured');
      const after = await readCounters(server.metrics.metricsUrls);
      process.stdout.write(
        `\n${server.description}: ${workflows} one-activity workflows at concurrency ${concurrency}, ` +
          `${figures.perSecond.toFixed(1)}/s, p50 ${figures.p50.toFixed(0)} ms; history shards per process: ` +
          `${(await shardsOwned(server.metrics.metricsUrls)).join(', ')}\n`,
      );
      console.table(perWorkflow(before, after, workflows));
    } finally {
      await worker.stop();
      await connection.close();
    }
  } finally {
    await server.stop();
  }
}

/** Per workflow, each service's requests of each operation and their mean latency; long polls left out. */
function perWorkflow(before: Counters, after: Counters, workflows: number) {
  const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
  const rows = [];
  for (const key of after.keys()) {
    const [metric, service, operation] = key.split('|');
    const [kind, [, sum]] = Object.entries(KINDS).find(([, [count]]) => count === metric) ?? ['', []];
    if (!kind || operation.includes('Poll')) continue;
    const requests = delta(key);
    if (requests / workflows < 0.05) continue;
    const seconds = delta([sum, service, operation].join('|'));
    rows.push({
      kind,
      service,
      operation,
      'per workflow': round2(requests / workflows),
      'mean ms': round2((seconds * 1000) / requests),
    });
  }
  return rows.sort((a, b) => a.kind.localeCompare(b.kind) || b['per workflow'] - a['per workflow']);
}

/** The history shards each process owns now (`numshards_gauge`; 0 for a process that is not a history host). */
async function shardsOwned(urls: string[]): Promise<number[]> {
  return Promise.all(
    urls.map(async (url) => {
      const text = await fetch(url).then((answer) => answer.text());
      return Number(/^numshards_gauge\{[^}]*\} (\S+)$/m.exec(text)?.[1] ?? 0);
    }),
  );
}

const round2 = (value: number) => Math.round(value * 100) / 100;

const { values } = parseArgs({
  options: {
    temporal: { type: 'string', default: 'both' },
    workflows: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '50' },
    help: { type: 'boolean', default: false },
  },
});
const workflows = Number(values.workflows);
const concurrency = Number(values.concurrency);
const problem = ![workflows, concurrency].every((value) => Number.isInteger(value) && value >= 1)
  ? '--workflows and --concurrency must be whole numbers of at least 1'
  : !['start-dev', 'cluster', 'both'].includes(values.temporal)
    ? `--temporal must be start-dev, cluster or both, not ${values.temporal}`
    : undefined;
if (values.help) process.stdout.write(`${USAGE}\n`);
else if (problem) {
  process.stderr.write(`${problem}\n\n${USAGE}\n`);
  process.exitCode = 2;
} else {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  for (const kind of temporalKinds(values.temporal)) await measure(kind, workflows, concurrency);
}
