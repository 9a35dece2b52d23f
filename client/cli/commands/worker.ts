import type { Command } from 'commander';
import type { LogLine } from '../../../infra/log.js';
import type { RunningWorker } from '../../../worker/index.js';
import { CliFailure, report } from './order-session.js';

const WORKER_HELP = `
Reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE (and TEMPORAL_TLS*, TEMPORAL_API_KEY),
DATABASE_URL, MVE_CODEC_KEYS, MVE_ACTION_KEY, MVE_APPROVAL_POLICY_FILE (or MVE_APPROVAL_POLICY), MVE_API_BASE_URL, MVE_AUTH_URL, MVE_ENVIRONMENT, MVE_CLIENT_ID,
MVE_CLIENT_SECRET (MVE_ALLOW_PRODUCTION=true for production), MVE_KIND_MAP, MVE_CALLBACK_SECRET,
MVE_CALLBACK_ALLOW_HTTP, MVE_CALLBACK_ALLOWED_NETWORKS, MVE_APPROVER_WEBHOOK_URL (approvers told of each order
waiting for them) and MVE_CONSOLE_URL (the console link in those messages).
MVE_LOG_FORMAT=json prints one JSON object a line on stdout (default text); MVE_LOG_LEVEL: debug, info, warn, error.
The worker polls <TEMPORAL_TASK_QUEUE>.<MVE_ENVIRONMENT>. On SIGINT/SIGTERM it stops polling, lets running
tasks finish and exits 0; what still runs after MVE_SHUTDOWN_GRACE (default 25s) is left to Temporal, which gives
it to another worker, and it exits 1. See docs/running.md.`;

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description(
      'Run an order worker against a real deployment (configured by environment variables) until SIGINT/SIGTERM',
    )
    .option('--database-url <url>', 'PostgreSQL URL (default: $DATABASE_URL)')
    .addHelpText('after', WORKER_HELP)
    .action(async (options: { databaseUrl?: string }) => {
      let log: LogLine;
      let running: RunningWorker;
      try {
        const { openDatabase, resolveDatabaseUrl } = await import('../../../infra/db/index.js');
        const { resolveKeyring } = await import('../../../codec/index.js');
        const { resolveActionKeys } = await import('../../../config/action-keys.js');
        const { createLogger, logSettingsFromEnv } = await import('../../../infra/log.js');
        const { installRuntimeLogger, logApiCalls, runWorker } = await import('../../../worker/index.js');
        const settings = logSettingsFromEnv(process.env);
        const logger = createLogger({ service: 'worker', settings, textStream: process.stdout });
        installRuntimeLogger(logger, settings.level);
        log = logger.line;
        const databaseUrl = resolveDatabaseUrl(options.databaseUrl);
        await (await openDatabase(databaseUrl, { maxConnections: 1 })).end();
        const keyring = await resolveKeyring({ env: process.env });
        const actionKeys = await resolveActionKeys({ env: process.env });
        running = await runWorker({
          env: process.env,
          databaseUrl,
          keyring,
          actionKeys,
          log,
          logApi: logApiCalls(logger),
        }).catch((error: unknown) => {
          throw new Error(
            `cannot start the worker (TEMPORAL_ADDRESS=${process.env['TEMPORAL_ADDRESS'] ?? 'unset'}): ${(error as Error).message}`,
          );
        });
      } catch (error) {
        // Configuration, database and connection problems are each one sentence naming what to set or start.
        report('worker', {}, new CliFailure(2, (error as Error).message, 'CANNOT_START'));
        // The Temporal runtime, installed for the logs before anything could fail, would keep the process alive.
        process.exit();
      }
      const stop = (signal: NodeJS.Signals) => {
        const graceSeconds = running.shutdownGraceMs / 1000;
        log(`${signal}: stopping the worker (running tasks get ${graceSeconds} s to finish)`);
        // What still runs then is left to Temporal, which gives it to another worker once its timeout passes: the
        // SDK cannot stop a worker cleanly with work in flight, and asks that its process exit.
        setTimeout(() => {
          const left = `tasks still running after ${graceSeconds} s (MVE_SHUTDOWN_GRACE) were left to Temporal, which gives them to another worker`;
          report(
            'worker',
            {},
            new CliFailure(1, `stopped before its work was done: ${left}`, 'SHUTDOWN_GRACE_EXPIRED'),
          );
          process.exit();
        }, running.shutdownGraceMs).unref();
        void running.shutdown();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        await running.done;
        log('worker stopped');
      } catch (error) {
        report('worker', {}, new CliFailure(2, `the worker failed: ${(error as Error).message}`, 'WORKER_FAILED'));
      } finally {
        process.removeListener('SIGINT', stop);
        process.removeListener('SIGTERM', stop);
      }
    });
}
