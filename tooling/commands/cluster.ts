import { InvalidArgumentError, type Command } from 'commander';
import type { ClusterCommandOptions } from './run-cluster.js';

const CLUSTER_HELP = `
A Temporal cluster shaped like a self-hosted production one, on this machine's loopback: Temporal's server
(go.temporal.io/server, built from its Go module into .tools/temporal-cluster/ first when missing, as \`npm run
cluster:install\` does: 6 to 20 minutes the first time on 2 cores, seconds after), each service a process of its own
with its own gRPC, membership, pprof and metrics ports, its state in PostgreSQL: the embedded PostgreSQL in
.data/cluster/postgres (or $MVE_DATA_DIR/cluster/postgres), or DATABASE_URL's server (its role creates the databases
temporal and temporal_visibility when missing). Temporal's schema is set up or upgraded with its schema tool, the
namespace (TEMPORAL_NAMESPACE, default "default") and the order's search attributes registered, and Temporal's Web
UI served beside it. Config files and logs go to .data/cluster/temporal/.

It prints where everything is (with --json, as one line of JSON) and \`export TEMPORAL_ADDRESS=…\` to point your
own \`mve-orders serve\` and \`worker\` at it, then runs until Ctrl-C, which stops every process. A process that ends
on its own stops the rest (exit 1). Its state stays in PostgreSQL: the next start carries on. See docs/cluster.md.`;

/** Ports and counts, checked before anything starts. */
const whole = (name: string, low: number, high: number) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < low || Number(value) > high)
    throw new InvalidArgumentError(`--${name} must be a whole number from ${low} to ${high}`);
  return Number(value);
};

export function registerClusterCommand(program: Command): void {
  program
    .command('cluster')
    .description(
      "Run a Temporal cluster shaped like production (Temporal's services apart, on PostgreSQL) until Ctrl-C",
    )
    .option(
      '--port <port>',
      "the first frontend's gRPC port, what clients dial (default: 7233, or a free one when taken; 0: any)",
      whole('port', 0, 65535),
    )
    .option('--frontend <n>', 'frontend processes (default 1)', whole('frontend', 1, 16))
    .option('--history <n>', 'history processes, which share the shards out (default 2)', whole('history', 1, 16))
    .option('--matching <n>', 'matching processes (default 2)', whole('matching', 1, 16))
    .option(
      '--shards <n>',
      'history shards, set when the cluster is created (default 16): fixed for its life, so refused on an existing cluster with another count',
      whole('shards', 1, 16_384),
    )
    .option(
      '--ui-port <port>',
      "the Web UI's port (default: 8233, or a free one when taken; 0: any)",
      whole('ui-port', 0, 65535),
    )
    .option('--json', 'print the summary as one line of JSON (and keep running)')
    .addHelpText('after', CLUSTER_HELP)
    .action(async (options: ClusterCommandOptions) => {
      // Loaded when the command runs only: the other commands do without the cluster's modules.
      const { runCluster } = await import('./run-cluster.js');
      await runCluster(options);
    });
}
