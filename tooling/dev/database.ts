import { join } from 'node:path';
import { createRepository, openDatabase, runMigrations } from '../../infra/db/index.js';
import { seedDemoPeople, type DEMO_PEOPLE } from './approvers.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { NEVER_LOST, STOP_STEPS, watchUnaskedEnd, type DevStops } from './stops.js';
import { issueDevUserTokens, type DevUser } from './users.js';

export interface DevDatabase {
  url: string;
  /** Where the embedded cluster keeps its data (`<data folder>/postgres`, unless root had to place it elsewhere). */
  postgresDataDir: string | undefined;
  /** Resolves, saying how, if the embedded PostgreSQL ends before dev stops it. */
  postgresLost: Promise<string>;
  /** The demo people added to the directory (none when they were all there). */
  seededApprovers: Array<(typeof DEMO_PEOPLE)[number]>;
  /** The seeded users of the HTTP API, with their tokens. */
  users: DevUser[];
}

/**
 * DATABASE_URL's database, else the embedded PostgreSQL (stopped last), with `settings` beyond its own; migrated, demo
 * people and users in it.
 */
export async function startDevDatabase(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  stops: DevStops,
  settings?: Record<string, string>,
): Promise<DevDatabase> {
  const server = env['DATABASE_URL']
    ? { url: env['DATABASE_URL'], postgresDataDir: undefined, postgresLost: NEVER_LOST }
    : await startPostgres(dataDir, stops, settings);
  return { ...server, ...(await prepareDatabase(server.url, dataDir)) };
}

async function startPostgres(
  dataDir: string,
  stops: DevStops,
  settings: Record<string, string> | undefined,
): Promise<Pick<DevDatabase, 'url' | 'postgresDataDir' | 'postgresLost'>> {
  const postgres = await startEmbeddedPostgres({
    dataDir: join(dataDir, 'postgres'),
    ...(settings ? { settings } : {}),
  });
  const end = watchUnaskedEnd(postgres.exited);
  stops.add(STOP_STEPS.postgres, async () => {
    const ended = end.ask();
    if (ended) return `PostgreSQL had already stopped (${ended})`;
    await postgres.stop();
  });
  return { url: postgres.url, postgresDataDir: postgres.dataDir, postgresLost: end.lost };
}

/** Migrations applied, the demo people the directory lacks added, the seeded users' tokens kept or made. */
async function prepareDatabase(url: string, dataDir: string): Promise<Pick<DevDatabase, 'seededApprovers' | 'users'>> {
  const sql = await openDatabase(url, { maxConnections: 1 });
  try {
    await runMigrations(sql);
    const repository = createRepository(sql);
    return { seededApprovers: await seedDemoPeople(repository), users: await issueDevUserTokens(repository, dataDir) };
  } finally {
    await sql.end();
  }
}
