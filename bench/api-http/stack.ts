/**
 * The whole stack as `mve-orders dev` runs it, for the HTTP bench: an embedded PostgreSQL (temporary cluster) with the
 * bench's API tokens, the real Temporal server (durable with dev's SQLite settings in a scratch folder:
 * bench/temporal.ts), and in this process the API simulator, the real worker (runWorker, default approval policy) and
 * the real API server (startApiServer).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectDatabase, createRepository, runMigrations, type Repository } from '../../infra/db/index.js';
import { startEmbeddedPostgres } from '../../tooling/dev/embedded-postgres.js';
import { writeSimKindMap } from '../../tooling/dev/kind-map.js';
import { issueApiToken } from '../../client/http/index.js';
import { startApiServer } from '../../client/server/index.js';
import { Keyring } from '../../codec/index.js';
import { kindMapFromEnv } from '../../infra/catalog/index.js';
import { startSimulator, type Simulator } from '../../tooling/sim/index.js';
import { runWorker } from '../../worker/index.js';
import { startBenchTemporal } from '../temporal.js';

const HOST = '127.0.0.1';
const TASK_QUEUE = 'bench-http';

/** How to undo each part started, pushed as it starts; the caller runs them last first. */
export type Stops = Array<() => Promise<unknown>>;

export interface HttpStack {
  apiUrl: string;
  /** Bearer tokens: alice submits (requester), fiona approves (finance approver). */
  tokens: { alice: string; fiona: string };
  /** For the progress line: where the stack listens and the policy its worker runs. */
  description: string;
}

export async function startHttpStack(log: (line: string) => void, stops: Stops): Promise<HttpStack> {
  // The cluster's folder is not created here: the embedded server creates it, owned by the account it runs as.
  const pgDir = path.join(tmpdir(), `mve-bench-api-http-pg-${process.pid}-${randomBytes(3).toString('hex')}`);
  const postgres = await startEmbeddedPostgres({ dataDir: pgDir, ephemeral: true });
  stops.push(
    () => rm(pgDir, { recursive: true, force: true }),
    () => postgres.stop(),
  );
  const scratch = await mkdtemp(path.join(tmpdir(), 'mve-bench-api-http-'));
  stops.push(() => rm(scratch, { recursive: true, force: true }));

  const sql = connectDatabase(postgres.url);
  stops.push(() => sql.end({ timeout: 5 }));
  await runMigrations(sql);
  const tokens = await addBenchPeople(createRepository(sql));

  const temporal = await startBenchTemporal({ sqlite: 'tuned', log });
  stops.push(() => temporal.stop());
  const sim = await startSimulator({ host: HOST });
  stops.push(() => sim.close());

  const env = await stackEnv(sim, scratch);
  const keyring = Keyring.fromText(`bench:${randomBytes(32).toString('base64')}`);
  const actionKeys = Keyring.fromText(`bench-action:${randomBytes(32).toString('base64')}`, 'bench', 'action keys');
  const common = { env, temporalAddress: temporal.address, databaseUrl: postgres.url, actionKeys };
  const worker = await runWorker({ ...common, keyring, log: () => undefined });
  stops.push(() => worker.shutdown());
  const api = await startApiServer({
    ...common,
    codecKeys: keyring,
    kindMap: kindMapFromEnv(env),
    host: HOST,
    port: 0,
    log: (line) => log(`[http] ${line}`),
  });
  stops.push(() => api.close());
  return {
    apiUrl: api.url,
    tokens,
    description: `API ${api.url}, Temporal ${temporal.address}, policy ${worker.dependencies.policies.version}`,
  };
}

/** fiona in the directory as a finance approver; a token for her and one for alice, a requester. */
async function addBenchPeople(repository: Repository): Promise<HttpStack['tokens']> {
  await repository.addApprover({ id: 'fiona', displayName: 'Fiona (bench)', roles: ['finance-approver'] });
  const token = async (owner: string, roles: string[]) =>
    (await issueApiToken(repository, { owner, roles, description: 'bench' })).token;
  return { alice: await token('alice', ['requester']), fiona: await token('fiona', ['finance-approver']) };
}

/** The worker's and the server's environment: the simulator as the provider, its kind map in `scratch`. */
async function stackEnv(sim: Simulator, scratch: string): Promise<NodeJS.ProcessEnv> {
  return {
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    MVE_API_BASE_URL: sim.baseUrl,
    MVE_AUTH_URL: sim.authUrl,
    MVE_ENVIRONMENT: sim.environment,
    MVE_CLIENT_ID: sim.clientId,
    MVE_CLIENT_SECRET: sim.clientSecret,
    MVE_KIND_MAP: await writeSimKindMap(scratch),
    // The server's own cost is measured, many requests a second under one token: no per-credential limit.
    MVE_RATE_LIMIT: '0',
    // Bought orders stay BOUGHT, as they were when these figures began: no provisioning follow-up to read.
    MVE_FOLLOW_PROVISIONING: 'false',
  };
}
