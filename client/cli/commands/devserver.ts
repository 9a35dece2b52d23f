import { InvalidArgumentError, type Command } from 'commander';

export const DEFAULT_DEVSERVER_PORT = 7233;

export function registerDevserverCommand(program: Command): void {
  program
    .command('devserver')
    .description(
      'Run the embedded Temporal-compatible development server until Ctrl-C: state in memory, or with --database-url in PostgreSQL, where it survives restarts',
    )
    .option('--port <port>', 'port to listen on (0 picks a free one)', parsePort, DEFAULT_DEVSERVER_PORT)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--namespace <name>', 'namespace to register besides "default"', parseNamespace, 'default')
    .option('--time-skipping', 'virtual clock: jump to the next timer whenever nothing is in flight and a client waits')
    .option('--log', 'print the server log (unimplemented RPCs, retries, failed workflow tasks)')
    .option(
      '--database-url <url>',
      'keep workflows, histories, task queues and visibility in this PostgreSQL database (postgres://user:password@host:port/db), ' +
        'so a restart loses nothing; without it, state is in memory',
      parseDatabaseUrl,
    )
    .option(
      '--schema <name>',
      "the schema of --database-url for the server's tables (created if missing)",
      parseSchema,
      'devserver',
    )
    .option(
      '--history-spill-dir <folder>',
      'keep the histories of idle workflows in a scratch file in this folder (removed when the server stops) instead of memory: ' +
        'for many long-waiting workflows',
    )
    .action(
      async (options: {
        port: number;
        host: string;
        namespace: string;
        timeSkipping?: boolean;
        log?: boolean;
        databaseUrl?: string;
        schema: string;
        historySpillDir?: string;
      }) => {
        const { startDevServer } = await import('@mve-orders/devserver');
        const server = await startDevServer({
          port: options.port,
          host: options.host,
          namespace: options.namespace,
          timeSkipping: options.timeSkipping ?? false,
          ...(options.databaseUrl ? { databaseUrl: options.databaseUrl, databaseSchema: options.schema } : {}),
          ...(options.historySpillDir ? { historySpillDir: options.historySpillDir } : {}),
          // without --log, only warnings (unimplemented calls, internal errors) are printed, to stderr
          ...(options.log ? { log: (line: string) => process.stdout.write(`[devserver] ${line}\n`) } : {}),
        }).catch((error: unknown) => {
          if (/EADDRINUSE|address already in use/i.test(String(error)))
            throw new Error(
              `port ${options.port} is already in use: pass --port with another port (or 0 for any free port)`,
            );
          throw error;
        });
        process.stdout.write(
          [
            `Temporal-compatible devserver listening on ${server.address}` +
              (server.timeSkipping ? ' (time skipping)' : ''),
            server.persistence.durable
              ? `  namespace ${server.namespace}; state in ${server.persistence.location} ` +
                `(${server.persistence.openRuns} open, ${server.persistence.closedRuns} closed workflow runs loaded in ${server.persistence.loadMs} ms)`
              : `  namespace ${server.namespace}; state is in memory and is lost when it stops (--database-url keeps it)`,
            `  export TEMPORAL_ADDRESS=${server.address} TEMPORAL_NAMESPACE=${server.namespace}`,
            'Press Ctrl-C to stop.',
            '',
          ].join('\n'),
        );
        await new Promise<void>((resolve) => {
          const stop = () => void server.close().then(resolve);
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
        process.stdout.write('devserver stopped\n');
      },
    );
}

function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError('--port must be a whole number from 0 to 65535');
  return Number(value);
}

function parseDatabaseUrl(value: string): string {
  if (!/^postgres(ql)?:\/\//.test(value))
    throw new InvalidArgumentError('--database-url must start with postgres:// or postgresql://');
  return value;
}

function parseSchema(value: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(value))
    throw new InvalidArgumentError('--schema must be lower-case letters, digits and _, starting with a letter or _');
  return value;
}

function parseNamespace(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/.test(value))
    throw new InvalidArgumentError(
      '--namespace must start with a letter or digit and hold only letters, digits, ".", "_" and "-"',
    );
  return value;
}
