import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import type { ClusterDatabase } from './config.js';

const run = promisify(execFile);

/** The two schemas of a Temporal cluster on PostgreSQL: its folder under the module's `schema/postgresql/v12`. */
const SCHEMAS = [
  { folder: 'temporal', database: (db: ClusterDatabase) => db.database },
  { folder: 'visibility', database: (db: ClusterDatabase) => db.visibilityDatabase },
] as const;

export interface SchemaStep {
  database: string;
  /** The schema version before and after: `none` for a database made now. */
  from: string;
  to: string;
}

/**
 * Creates Temporal's two databases when missing and brings their schemas to the version the server needs, with
 * Temporal's own schema tool, as an operator does (docs/deploy.md): `create-database` (a no-op when it exists),
 * `setup-schema -v 0.0` (the version tables alone) on a new database, then `update-schema` with the versioned folder,
 * which applies only the versions not applied yet. So a second start changes nothing, and a newer server's schema is
 * an upgrade.
 */
export async function prepareSchemas(sqlTool: string, schemaDir: string, db: ClusterDatabase): Promise<SchemaStep[]> {
  const steps: SchemaStep[] = [];
  for (const schema of SCHEMAS) {
    const database = schema.database(db);
    const tool = (...args: string[]) => runSchemaTool(sqlTool, db, database, args);
    await tool('create-database');
    const from = await schemaVersion(db, database);
    if (from === 'none') await tool('setup-schema', '-v', '0.0');
    await tool('update-schema', '-d', join(schemaDir, schema.folder, 'versioned'));
    steps.push({ database, from, to: await schemaVersion(db, database) });
  }
  return steps;
}

/** The version the schema tool recorded in `schema_version`, or `none` before setup. */
async function schemaVersion(db: ClusterDatabase, database: string): Promise<string> {
  const sql = postgres({
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    database,
    max: 1,
    onnotice: () => undefined,
  });
  try {
    const [table] = await sql`SELECT to_regclass('schema_version') AS name`;
    if (!table?.['name']) return 'none';
    const [row] =
      await sql`SELECT curr_version FROM schema_version WHERE version_partition = 0 AND db_name = ${database}`;
    return (row?.['curr_version'] as string | undefined) ?? 'none';
  } finally {
    await sql.end();
  }
}

async function runSchemaTool(sqlTool: string, db: ClusterDatabase, database: string, args: string[]): Promise<string> {
  const connection = ['--plugin', 'postgres12', '--ep', db.host, '-p', String(db.port), '-u', db.user];
  try {
    const { stdout, stderr } = await run(sqlTool, [...connection, '--db', database, ...args], {
      // the password through the environment, never on a command line that `ps` shows
      env: { ...process.env, SQL_PASSWORD: db.password },
      timeout: 120_000,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const failure = error as Error & { stderr?: string; stdout?: string };
    const said = `${failure.stdout ?? ''}${failure.stderr ?? ''}`.trim().split('\n').slice(-8).join('\n');
    throw new Error(`temporal-sql-tool ${args[0]} on ${database} failed: ${said || failure.message}`);
  }
}
