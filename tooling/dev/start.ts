import { chmod, mkdir, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createRepository, openDatabase, runMigrations } from '../../infra/db/index.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { resolveKeyring } from '../../codec/index.js';
import { resolveActionKeys } from '../../config/action-keys.js';
import { loadTemporalConfig, orderTaskQueue } from '../../config/temporal.js';
import { kindMapFromEnv } from '../../infra/catalog/index.js';
import { startSimulator } from '../sim/index.js';
import { runWorker } from '../../worker/index.js';
import { CODEC_CORS_VARIABLE, startApiServer } from '../../client/server/index.js';
import { SERVED_ENVIRONMENTS_VARIABLE } from '../../config/served-environments.js';
import { seedDemoPeople, type DEMO_PEOPLE } from './approvers.js';
import { loadOrCreateCallbackSecret } from './callback-secret.js';
import { earlierOrders, type EarlierOrders } from './earlier-orders.js';
import { writeSimKindMap } from './kind-map.js';
import {
  concretePort,
  heldPort,
  DEFAULT_HTTP_PORT,
  DEFAULT_SIMULATOR_PORT,
  DEFAULT_TEMPORAL_PORT,
  DEFAULT_TEMPORAL_UI_PORT,
  preferredOrFree,
  rememberedPorts,
  rememberPorts,
  type DevPorts,
} from './ports.js';
import { startRealTemporal } from './real-temporal.js';
import { readDevState, removeDevState, writeDevState, type DevState } from './state.js';
import { requireTemporalCli, type TemporalCli } from './temporal-cli.js';
import { issueDevUserTokens, type DevUser } from './users.js';

const HOST = '127.0.0.1';

export interface DevOptions {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  /**
   * Preferred ports of the servers dev starts; when taken, a free port is used and reported. 0: any free port.
   * Undefined: the port of the last start in this data folder (`dev-ports.json`), else the default (8080 for the
   * HTTP API, 7233 Temporal, 8233 its Web UI, 4010 the simulator), so URLs stay the same across restarts.
   */
  temporalPort?: number | undefined;
  simulatorPort?: number | undefined;
  httpPort?: number | undefined;
  temporalUiPort?: number | undefined;
  /** End in the records the orders the retired embedded Temporal server strands, and drop its state (earlier-orders.ts). */
  dropEarlierOrders?: boolean;
  log: (line: string) => void;
}

/** What dev started, and what it reused from the environment, for the start-up summary. */
export interface DevReport {
  state: DevState;
  taskQueue: string;
  embedded: { postgres: boolean; simulator: boolean };
  /** The Temporal server dev started, or none (TEMPORAL_ADDRESS). */
  temporalServer: TemporalServerReport;
  /** The state an earlier dev's embedded Temporal server left in the database, and the orders it strands. */
  earlierOrders?: EarlierOrders;
  /** Where the embedded cluster keeps its data (`<data folder>/postgres`, unless root had to place it elsewhere). */
  postgresDataDir: string | undefined;
  /** Preferred ports found taken, and the ports used instead. */
  movedPorts: Array<{ what: string; preferred: number; used: number }>;
  codecKeyId: string;
  codecKeyFromEnvironment: boolean;
  callbackSecretFromEnvironment: boolean;
  seededApprovers: ReadonlyArray<{ id: string; roles: readonly string[] }>;
  /** The seeded users of the HTTP API, with their tokens (also in dev.json). */
  users: DevUser[];
  /** Where the approval policy the worker enforces came from, and its version. */
  policy: { version: string; source: string };
}

/** `dbFile`: where the server keeps its state; `openRuns`: the workflow runs open in it when it started. */
export type TemporalServerReport =
  | { kind: 'external' }
  | {
      kind: 'real';
      version: string;
      cli: TemporalCli;
      dbFile: string;
      openRuns: number;
      logFile: string;
      uiUrl: string;
    };

export interface RunningDev extends DevReport {
  /** Resolves when the worker stops on its own (a fatal worker error). */
  workerDone: Promise<void>;
  /**
   * Resolves, saying how (`exit code 0`, `signal SIGKILL`), if the embedded PostgreSQL ends before stop() asks it to:
   * killed, crashed, or stopped by someone else. Never resolves otherwise.
   */
  postgresLost: Promise<string>;
  /** Likewise for the real Temporal server: resolves, saying how and where its log is, if it ends unasked. */
  temporalLost: Promise<string>;
  /**
   * Removes the state file, then stops taking HTTP requests, stops the worker (letting running tasks finish), the
   * simulator and Temporal, each closing its database connections, and stops PostgreSQL last. Reports each step as
   * it ends; a step that fails, or does not end in its time (STOP_STEPS), is reported and the next one taken.
   */
  stop(report?: (line: string) => void): Promise<void>;
}

/**
 * The order dev stops its parts in, whatever the order they started in, and how long each may take: the worker
 * lets running tasks finish (an API call may take its 30 s), PostgreSQL makes a last checkpoint.
 */
export const STOP_STEPS = {
  state: { order: 0, name: 'state file', stopped: 'state file removed', limitMs: 5_000 },
  http: { order: 1, name: 'HTTP API', stopped: 'HTTP API closed', limitMs: 15_000 },
  worker: { order: 2, name: 'worker', stopped: 'worker stopped', limitMs: 60_000 },
  simulator: { order: 3, name: 'API simulator', stopped: 'API simulator closed', limitMs: 15_000 },
  temporal: { order: 4, name: 'Temporal', stopped: 'Temporal closed', limitMs: 30_000 },
  postgres: { order: 5, name: 'PostgreSQL', stopped: 'PostgreSQL stopped', limitMs: 30_000 },
} as const;

type StopStep = (typeof STOP_STEPS)[keyof typeof STOP_STEPS];

/**
 * The whole engine on one machine: embedded PostgreSQL (migrated, demo approvers seeded when none exist), Temporal's
 * own server (`temporal server start-dev`), the API simulator and a worker holding the simulator's staging key.
 * DATABASE_URL, TEMPORAL_ADDRESS and MVE_API_BASE_URL each replace the part they name.
 */
export async function startDev(options: DevOptions): Promise<RunningDev> {
  const { env, dataDir, log } = options;
  const running = await readDevState(dataDir);
  if (running.found) {
    throw new Error(
      `dev is already running on ${dataDir} (pid ${running.state.pid}); stop it first, or set MVE_DATA_DIR to another folder`,
    );
  }
  await prepareDataDir(dataDir);
  const temporalConfig = loadTemporalConfig(env);
  const temporalCli = temporalConfig.address ? undefined : requireTemporalCli(env);
  const keyring = await resolveKeyring({ env, devDataDir: dataDir });
  const actionKeys = await resolveActionKeys({ env, devDataDir: dataDir });
  const callbackSecret = env['MVE_CALLBACK_SECRET'] || (await loadOrCreateCallbackSecret(dataDir));

  // Everything started is stopped in the order of STOP_STEPS, on failure half-way as on a normal stop. A stop may
  // return its own line for the report (PostgreSQL that had already ended).
  const stops: Array<{ step: StopStep; stop: () => Promise<string | void> }> = [];
  const stopAll = async (report: (line: string) => void = log) => {
    const steps = stops.splice(0).sort((a, b) => a.step.order - b.step.order);
    for (const { step, stop } of steps) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<string>((resolve) => {
        timer = setTimeout(
          () => resolve(`${step.name} did not stop within ${step.limitMs / 1000} s; going on`),
          step.limitMs,
        );
      });
      const line = await Promise.race([
        stop().then(
          (own) => own || step.stopped,
          (error: unknown) => `while stopping the ${step.name}: ${(error as Error).message}`,
        ),
        late,
      ]);
      clearTimeout(timer);
      report(line);
    }
  };
  let postgresEnded: string | undefined;
  let postgresAsked = false;
  let postgresLost: Promise<string> = new Promise(() => {});
  const movedPorts: DevReport['movedPorts'] = [];
  const ports = preferredPorts(options, await rememberedPorts(dataDir));
  const used: DevPorts = {};
  let postgresDataDir: string | undefined;
  let temporalLost: Promise<string> = new Promise(() => {});
  try {
    const databaseUrl = await (async () => {
      if (env['DATABASE_URL']) return env['DATABASE_URL'];
      const postgres = await startEmbeddedPostgres({ dataDir: join(dataDir, 'postgres') });
      stops.push({
        step: STOP_STEPS.postgres,
        stop: async () => {
          postgresAsked = true;
          if (postgresEnded) return `PostgreSQL had already stopped (${postgresEnded})`;
          await postgres.stop();
        },
      });
      postgresLost = new Promise((resolve) => {
        void postgres.exited.then((how) => {
          postgresEnded = how;
          if (!postgresAsked) resolve(how);
        });
      });
      postgresDataDir = postgres.dataDir;
      return postgres.url;
    })();
    const { seededApprovers, users } = await prepareDatabase(databaseUrl, dataDir);

    // The real server's Web UI decodes payloads through the API's codec server, so the API's port is settled first.
    const httpPort = temporalCli
      ? await heldPort(ports.http, HOST)
      : { ...(await preferredOrFree(ports.http, HOST)), release: () => Promise.resolve() };
    const temporal = await (async (): Promise<{ address: string; server: TemporalServerReport }> => {
      if (!temporalCli) return { address: temporalConfig.address!, server: { kind: 'external' } };
      const { port, taken } = await concretePort(ports.temporal, HOST);
      if (taken) movedPorts.push({ what: 'Temporal', preferred: ports.temporal, used: port });
      const ui = await concretePort(ports.temporalUi, HOST);
      if (ui.taken) movedPorts.push({ what: 'Temporal Web UI', preferred: ports.temporalUi, used: ui.port });
      Object.assign(used, { temporal: port, temporalUi: ui.port });
      const server = await startRealTemporal({
        cli: temporalCli,
        dataDir,
        host: HOST,
        port,
        uiPort: ui.port,
        namespace: temporalConfig.namespace,
        codecEndpoint: `http://${HOST}:${httpPort.port}/codec`,
        readyTimeoutMs: 60_000,
      });
      let ended: string | undefined;
      let asked = false;
      stops.push({
        step: STOP_STEPS.temporal,
        stop: async () => {
          asked = true;
          const before = ended;
          await server.stop();
          if (before) return `Temporal had already stopped (${before})`;
        },
      });
      temporalLost = new Promise((resolve) => {
        void server.exited.then((how) => {
          ended = how;
          if (!asked) resolve(`${how}; its log: ${server.logFile}`);
        });
      });
      return {
        address: server.address,
        server: {
          kind: 'real',
          version: server.version,
          cli: temporalCli,
          dbFile: server.dbFile,
          openRuns: server.openRuns,
          logFile: server.logFile,
          uiUrl: server.uiUrl,
        },
      };
    })();
    const temporalAddress = temporal.address;
    const earlier = await earlierOrders({
      databaseUrl,
      temporal: { address: temporalAddress, config: temporalConfig },
      drop: options.dropEarlierOrders ?? false,
    });
    // The real server's Web UI calls the codec server from the browser, as 127.0.0.1 or as localhost.
    const temporalUiOrigins =
      temporal.server.kind === 'real'
        ? [temporal.server.uiUrl, temporal.server.uiUrl.replace(`//${HOST}:`, '//localhost:')]
        : [];

    let simulatorUrl: string | undefined;
    let catalogKey: DevState['api']['catalogKey'];
    let kindMapFile = env['MVE_KIND_MAP'] || undefined;
    const apiEnv = await (async (): Promise<NodeJS.ProcessEnv> => {
      if (env['MVE_API_BASE_URL']) return {};
      const { port, taken } = await preferredOrFree(ports.simulator, HOST);
      const sim = await startSimulator({ port, host: HOST });
      stops.push({ step: STOP_STEPS.simulator, stop: () => sim.close() });
      if (taken)
        movedPorts.push({
          what: 'API simulator',
          preferred: ports.simulator,
          used: Number(new URL(sim.url).port),
        });
      used.simulator = Number(new URL(sim.url).port);
      simulatorUrl = sim.url;
      const readOnly = sim.clients.find(
        (client) => client.environment === sim.environment && client.role === 'Read Only',
      );
      if (readOnly)
        catalogKey = { authUrl: sim.authUrl, clientId: readOnly.clientId, clientSecret: readOnly.clientSecret };
      kindMapFile ??= await writeSimKindMap(dataDir);
      return {
        MVE_API_BASE_URL: sim.baseUrl,
        MVE_AUTH_URL: sim.authUrl,
        MVE_ENVIRONMENT: sim.environment,
        MVE_CLIENT_ID: sim.clientId,
        MVE_CLIENT_SECRET: sim.clientSecret,
      };
    })();

    installQuietRuntime();
    const workerEnv: NodeJS.ProcessEnv = {
      ...env,
      ...apiEnv,
      MVE_CALLBACK_SECRET: callbackSecret,
      // dev runs one worker, for the ordering API's environment: the API takes orders for that environment only.
      [SERVED_ENVIRONMENTS_VARIABLE]: apiEnv['MVE_ENVIRONMENT'] ?? 'staging',
      // A ticket system tried out next to dev listens on this machine over plain http.
      MVE_CALLBACK_ALLOW_HTTP: env['MVE_CALLBACK_ALLOW_HTTP'] ?? 'true',
      MVE_CALLBACK_ALLOWED_NETWORKS: env['MVE_CALLBACK_ALLOWED_NETWORKS'] ?? '127.0.0.0/8,::1',
      // The simulator has a product LIVE within seconds of the buy (a real one takes minutes): read it that often.
      ...(simulatorUrl
        ? {
            MVE_PROVISIONING_POLL: env['MVE_PROVISIONING_POLL'] ?? '2s',
            MVE_PROVISIONING_POLL_MAX: env['MVE_PROVISIONING_POLL_MAX'] ?? '5s',
          }
        : {}),
      ...(kindMapFile ? { MVE_KIND_MAP: kindMapFile } : {}),
      ...(temporalUiOrigins.length > 0
        ? { [CODEC_CORS_VARIABLE]: [env[CODEC_CORS_VARIABLE], ...temporalUiOrigins].filter(Boolean).join(',') }
        : {}),
    };
    // The API first: its URL is the console's, which the worker puts in its messages to approvers.
    await httpPort.release();
    const api = await startApiServer({
      env: workerEnv,
      temporalAddress,
      ...(temporalConfig.address ? {} : { temporalConnectTimeoutMs: 60_000 }),
      databaseUrl,
      codecKeys: keyring,
      actionKeys,
      kindMap: kindMapFromEnv(workerEnv),
      host: HOST,
      port: httpPort.port,
      devUsers: users,
      log: (line) => log(`[http] ${line}`),
    });
    stops.push({ step: STOP_STEPS.http, stop: async () => void (await api.close()) });
    used.http = Number(new URL(api.url).port);
    if (httpPort.taken) movedPorts.push({ what: 'HTTP API', preferred: ports.http, used: used.http });

    const worker = await runWorker({
      env: { ...workerEnv, MVE_CONSOLE_URL: env['MVE_CONSOLE_URL'] ?? api.url },
      temporalAddress,
      databaseUrl,
      keyring,
      actionKeys,
      log: (line) => log(`[worker] ${line}`),
    }).catch((error: unknown) => {
      throw new Error(`the worker could not start (Temporal at ${temporalAddress}): ${(error as Error).message}`);
    });
    stops.push({ step: STOP_STEPS.worker, stop: () => worker.shutdown() });
    const environment = worker.dependencies.environment;
    const state: DevState = {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      dataDir,
      temporal: {
        address: temporalAddress,
        namespace: temporalConfig.namespace,
        taskQueue: temporalConfig.taskQueue,
        ...(temporal.server.kind === 'real' ? { uiUrl: temporal.server.uiUrl } : {}),
      },
      databaseUrl,
      api: {
        environment,
        baseUrl: workerEnv['MVE_API_BASE_URL']!,
        ...(simulatorUrl ? { simulatorUrl } : {}),
        ...(catalogKey ? { catalogKey } : {}),
      },
      ...(kindMapFile ? { kindMapFile } : {}),
      http: { url: api.url },
      users,
    };
    await writeDevState(state);
    await rememberPorts(dataDir, used);
    stops.push({ step: STOP_STEPS.state, stop: () => removeDevState(dataDir) });

    return {
      state,
      taskQueue: orderTaskQueue(temporalConfig.taskQueue, environment),
      embedded: { postgres: !env['DATABASE_URL'], simulator: simulatorUrl !== undefined },
      temporalServer: temporal.server,
      ...(earlier ? { earlierOrders: earlier } : {}),
      postgresDataDir,
      movedPorts,
      codecKeyId: keyring.currentKeyId,
      codecKeyFromEnvironment: Boolean(env['MVE_CODEC_KEYS']?.trim()),
      callbackSecretFromEnvironment: Boolean(env['MVE_CALLBACK_SECRET']),
      seededApprovers,
      users,
      policy: { version: worker.dependencies.policies.version, source: worker.dependencies.policies.source },
      workerDone: worker.done,
      postgresLost,
      temporalLost,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * Private to this account, except that as root the folder must also let the postgres account (PostgreSQL
 * refuses to run as root) pass through to its cluster in `postgres/`: execute without read, so the key
 * files beside it (mode 0600) stay unreadable and unlisted.
 */
async function prepareDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (userInfo().uid !== 0) return;
  const { mode } = await stat(dataDir);
  if ((mode & 0o001) === 0) await chmod(dataDir, (mode & 0o777) | 0o001);
}

/** A port given wins; else the port of the last start in this data folder; else the default. */
function preferredPorts(options: DevOptions, remembered: DevPorts): Required<DevPorts> {
  return {
    http: options.httpPort ?? remembered.http ?? DEFAULT_HTTP_PORT,
    temporal: options.temporalPort ?? remembered.temporal ?? DEFAULT_TEMPORAL_PORT,
    temporalUi: options.temporalUiPort ?? remembered.temporalUi ?? DEFAULT_TEMPORAL_UI_PORT,
    simulator: options.simulatorPort ?? remembered.simulator ?? DEFAULT_SIMULATOR_PORT,
  };
}

/** Migrations applied, the demo people the directory lacks added, the seeded users' tokens kept or made. */
async function prepareDatabase(
  url: string,
  dataDir: string,
): Promise<{ seededApprovers: Array<(typeof DEMO_PEOPLE)[number]>; users: DevUser[] }> {
  const sql = await openDatabase(url, { maxConnections: 1 });
  try {
    await runMigrations(sql);
    const repository = createRepository(sql);
    return { seededApprovers: await seedDemoPeople(repository), users: await issueDevUserTokens(repository, dataDir) };
  } finally {
    await sql.end();
  }
}

/** The SDK's core runtime logs every worker state change at INFO; dev shows warnings and errors only. */
function installQuietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // a runtime is already installed in this process: keep it
  }
}
