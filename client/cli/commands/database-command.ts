import type { Command } from 'commander';
import type { Repository } from '../../../infra/db/index.js';

/** Options every admin command that talks to PostgreSQL directly takes (approvers, tokens). */
export interface DatabaseCommandOptions {
  databaseUrl?: string;
  json?: boolean;
}

export function databaseOptions(command: Command): Command {
  return command
    .option('--database-url <url>', 'PostgreSQL URL (default: $DATABASE_URL)')
    .option('--json', 'print the result as JSON');
}

/** Runs `work` on a one-connection repository, closed afterwards whatever happens. */
export async function withRepository(
  options: DatabaseCommandOptions,
  work: (repo: Repository) => Promise<void>,
): Promise<void> {
  const { createRepository, openDatabase, resolveDatabaseUrl } = await import('../../../infra/db/index.js');
  const sql = await openDatabase(resolveDatabaseUrl(options.databaseUrl), { maxConnections: 1 });
  try {
    await work(createRepository(sql));
  } finally {
    await sql.end();
  }
}

/** The value as JSON with --json, else the human text. */
export function printResult(options: DatabaseCommandOptions, value: unknown, human: () => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : human());
}
