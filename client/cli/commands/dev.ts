import { InvalidArgumentError, type Command } from 'commander';
import {
  DEFAULT_HTTP_PORT,
  DEFAULT_SIMULATOR_PORT,
  DEFAULT_TEMPORAL_PORT,
  describeDev,
  devDataDir,
  startDev,
} from '../../dev/index.js';

export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description('Run the whole engine on one machine with embedded defaults (what `npm start` runs) until Ctrl-C')
    .option(
      '--temporal-port <port>',
      'port of the embedded Temporal server (taken: a free one is used; 0: any)',
      port('temporal-port'),
      DEFAULT_TEMPORAL_PORT,
    )
    .option(
      '--sim-port <port>',
      'port of the API simulator (taken: a free one is used; 0: any)',
      port('sim-port'),
      DEFAULT_SIMULATOR_PORT,
    )
    .option(
      '--http-port <port>',
      'port of the HTTP API (taken: a free one is used; 0: any)',
      port('http-port'),
      DEFAULT_HTTP_PORT,
    )
    .addHelpText(
      'after',
      `
Starts embedded PostgreSQL (data in .data/postgres, or $MVE_DATA_DIR/postgres), the Temporal devserver, the API
simulator, a worker and the HTTP API; applies migrations; seeds demo approvers into an empty approver table
and makes API tokens for the seeded users (alice requester, fiona finance-approver, dave finance-director,
olga ops, ticket-bot ticket-system), written to .data/dev.json for \`--as <user>\`. Set
DATABASE_URL, TEMPORAL_ADDRESS or MVE_API_BASE_URL (with MVE_AUTH_URL, MVE_ENVIRONMENT, MVE_CLIENT_ID,
MVE_CLIENT_SECRET) to use a real one instead. Other commands find the running dev through .data/dev.json.
See docs/running.md.`,
    )
    .action(async (options: { temporalPort: number; simPort: number; httpPort: number }) => {
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const dev = await startDev({
        env: process.env,
        dataDir: devDataDir(process.env),
        temporalPort: options.temporalPort,
        simulatorPort: options.simPort,
        httpPort: options.httpPort,
        log,
      });
      process.stdout.write(describeDev(dev));
      const reason = await new Promise<string>((resolve) => {
        const onSignal = (signal: NodeJS.Signals) => {
          // A second Ctrl-C while shutting down means "now".
          process.once(signal, () => process.exit(130));
          resolve(signal);
        };
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        dev.workerDone.then(
          () => resolve('the worker stopped'),
          (error: unknown) => resolve(`the worker failed: ${(error as Error).message}`),
        );
      });
      process.stdout.write(`stopping (${reason}): worker, then the servers\n`);
      await dev.stop();
      process.stdout.write('stopped\n');
      if (!reason.startsWith('SIG')) process.exitCode = 1;
    });
}

function port(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) > 65535)
      throw new InvalidArgumentError(`--${name} must be a whole number from 0 to 65535`);
    return Number(value);
  };
}
