import type { Command } from 'commander';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('Apply pending database migrations (safe to repeat, and to run from several places at once)')
    .option('--database-url <url>', 'PostgreSQL URL (default: $DATABASE_URL)')
    .action(async (options: { databaseUrl?: string }) => {
      const { openDatabase, redactDatabaseUrl, resolveDatabaseUrl, runMigrations } =
        await import('../../../infra/db/index.js');
      const url = resolveDatabaseUrl(options.databaseUrl);
      const sql = await openDatabase(url, { maxConnections: 1 });
      try {
        const run = await runMigrations(sql);
        for (const migration of run.applied) process.stdout.write(`applied ${migration.name}\n`);
        const total = run.alreadyApplied + run.applied.length;
        process.stdout.write(
          run.applied.length === 0
            ? `${redactDatabaseUrl(url)} is up to date (${total} migrations applied)\n`
            : `${run.applied.length} migration(s) applied; ${redactDatabaseUrl(url)} is at ${total}\n`,
        );
      } finally {
        await sql.end();
      }
    });
}
