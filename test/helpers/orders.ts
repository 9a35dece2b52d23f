/**
 * The whole order engine for workflow tests: Temporal's own server (`temporal server start-dev`, or the time-skipping
 * test server for a file that asks for it: ./temporal.ts), the API simulator, a migrated PostgreSQL database, the real activities and the real worker, and clients that share
 * the encrypting codec. One engine per test file; each test uses its own ticket ids.
 *
 *   const pg = usePostgres(test);                 // at module level
 *   test.before(async (t) => { t.context.engine = await startOrderEngine(pg); });
 *   test.after.always((t) => t.context.engine?.stop());
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { Client, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from '@temporalio/worker';
import { createApiClient, Secret, type ApiClient } from '../../infra/ordering-api/index.js';
import { createRepository, ticketFingerprint, type Repository, type TicketRecord } from '../../infra/db/index.js';
import {
  callbackPolicyFromEnv,
  signNotification,
  SIGNATURE_HEADER,
  temporalOrderRequests,
  TIMESTAMP_HEADER,
  type OrderRequestReader,
} from '../../activities/order/index.js';
import type { OrderActivities, TicketNotification } from '../../workflows/order/activity-types.js';
import { encryptingDataConverter, Keyring, workerDataConverter } from '../../codec/index.js';
import {
  DuplicateOrderError,
  OrderClient,
  OrderIntake,
  orderIdFor,
  orderWorkflowId,
  type SubmittedOrder,
} from '../../client/orders/index.js';
import { orderTaskQueue } from '../../config/temporal.js';
import type { OrderWorkflowInput } from '../../workflows/order/types.js';
import { startSimulator, SIM_KIND_MAP, type Simulator, type SimulatorOptions } from '../../tooling/sim/index.js';
import type { ProvisioningPlan } from '../../domain/lifecycle/index.js';
import { redactOrderRequest } from '../../domain/index.js';
import {
  parseApprovalPolicy,
  defaultApprovalPolicies,
  type ApprovalPolicies,
  type PoliciesInForce,
} from '../../domain/approval/index.js';
import { createEnvironmentActivities, createOrderWorker, orderWorkflowBundle } from '../../worker/index.js';
import type { TestPostgres, TestDatabase } from './postgres.js';
import { startTemporalTestEnv, type TemporalTestEnv, type TestTemporalKind } from './temporal.js';

export const TASK_QUEUE = 'mve-orders-test';

/** Who submits in workflow tests unless a test says otherwise. */
export const TEST_SUBMITTER = 'alice';

/** The order id of a ticket the tests submitted (as `submittedBy`, alice by default). */
export function orderOf(ticketId: string, submittedBy = TEST_SUBMITTER): string {
  return orderIdFor(submittedBy, ticketId);
}

/** The workflow id of a ticket the tests submitted (as `submittedBy`, alice by default). */
export function workflowOf(ticketId: string, submittedBy = TEST_SUBMITTER): string {
  return orderWorkflowId(orderOf(ticketId, submittedBy));
}
export const CALLBACK_SECRET = 'test-callback-secret';

/**
 * The staging policy's rules for tests, with lines placed between the simulator's Sydney prices (AUD, 12 months):
 * MVE 4/16 = 809.10 (auto-approved), MVE 8/32 = 1618.20 (one approver), MVE 16/64 = 3236.40 (two approvers).
 */
const TEST_STAGING_RULES = {
  autoApproveBelow: { AUD: 1000, USD: 1000 },
  tiers: [
    { name: 'team', roles: ['finance-approver'], approvals: 1, upTo: { AUD: 3000, USD: 3000 } },
    { name: 'finance', roles: ['finance-approver', 'finance-director'], approvals: 2 },
  ],
  deadline: '72h',
  reminders: { beforeDeadline: ['24h', '1h'] },
  maxRiseWithoutApproval: { percent: 2 },
  maxQuoteAge: '12h',
};

/** The test policies with staging's timing changed (a deadline, reminders), as the workers of `version` hold them. */
export function testPoliciesTimed(
  version: string,
  timing: Pick<typeof TEST_STAGING_RULES, 'deadline' | 'reminders'>,
): PoliciesInForce {
  return {
    version,
    source: 'test',
    policies: { ...TEST_POLICIES, staging: parseApprovalPolicy({ ...TEST_STAGING_RULES, ...timing }) },
  };
}

export const TEST_POLICIES: ApprovalPolicies = {
  ...defaultApprovalPolicies(),
  staging: parseApprovalPolicy(TEST_STAGING_RULES),
};

/** The test policies as the engine's workers hold them. */
export const TEST_POLICIES_IN_FORCE: PoliciesInForce = { version: 'test-1', source: 'test', policies: TEST_POLICIES };

/**
 * The test policies with the first reminder 5 s into a round (the deadline stays far off): in real time, an order
 * started with a low continue-as-new threshold continues as new there, as it would at the 49-hour reminder.
 */
export const EARLY_REMINDER_POLICIES_IN_FORCE = testPoliciesTimed('test-early-reminder-1', {
  deadline: '72h',
  reminders: { beforeDeadline: ['259195s'] }, // 72 h less 5 s
});

export const APPROVERS = [
  { id: 'fiona', displayName: 'Fiona Finance', roles: ['finance-approver'] },
  { id: 'dave', displayName: 'Dave Director', roles: ['finance-director'] },
  { id: 'erin', displayName: 'Erin Engineer', roles: ['engineering-manager'] },
  { id: 'alice', displayName: 'Alice Requester', roles: ['finance-approver'] },
  // People ticket systems order for, who approve nothing: a ticket system's requester must be in the directory.
  { id: 'pat', displayName: 'Pat Requester', roles: [] },
  { id: 'quinn', displayName: 'Quinn Requester', roles: [] },
] as const;

/** A valid staging request (kind K9, Sydney) from examples/, with the ticket and size the test needs. */
export function sydneyRequest(ticketId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const example = JSON.parse(
    readFileSync(new URL('../../examples/k09-license-file-firewall.json', import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
  return { ...example, ticketId, requestedBy: 'alice', ...overrides };
}

export interface OrderEngine {
  temporal: TemporalTestEnv;
  sim: Simulator;
  db: TestDatabase;
  repository: Repository;
  apiClient: ApiClient;
  activities: OrderActivities;
  /** How the activities read an order run's request from Temporal (on `client`: the workers' data converter). */
  orderRequests: OrderRequestReader;
  orders: OrderClient;
  /** Where orders come in, as the HTTP API takes them: the ticket is registered, then its workflow started. */
  intake: OrderIntake;
  /**
   * Submits through the intake as `submittedBy` (default alice, the requester of `sydneyRequest`); a ticket that
   * already has its order is a DuplicateOrderError here, so tests see a re-sent ticket start nothing.
   */
  submit(body: unknown, submittedBy?: string): Promise<SubmittedOrder>;
  /**
   * Registers the ticket as the intake does and starts the order with `input` as given (with workflow options the API
   * never sets, such as a low continue-as-new threshold): the order is admitted like any the API started.
   */
  startRegistered(input: OrderWorkflowInput): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /**
   * Registers the ticket of `input` and records its order as the intake does (its request's fingerprint, its submitter;
   * the request redacted), starting nothing.
   */
  registerTicket(input: OrderWorkflowInput): Promise<void>;
  /** The ticket registered as `ticketId`, whoever submitted it (each test file uses a ticket id once). */
  ticket(ticketId: string): Promise<TicketRecord | null>;
  /** What the records hold of the order registered as `ticketId` (null: no such ticket, or nothing recorded). */
  records(ticketId: string): ReturnType<Repository['getOrder']>;
  client: Client;
  keyring: Keyring;
  /** The keyring as MVE_CODEC_KEYS text, for workers in other processes. */
  codecKeys: string;
  /** The action-signing keys (MVE_ACTION_KEY) the workers accept and `orders` signs with. */
  actionKeys: Keyring;
  /** The same as MVE_ACTION_KEY text, for workers in other processes. */
  actionKeysText: string;
  /** A new worker for the staging queue (tests that kill a worker start another). */
  startWorker(): Promise<{ worker: Worker; running: Promise<void> }>;
  /** Workers to shut down at the end: the one started with the engine, and any a test pushes. */
  workers: Array<{ worker: Worker; running: Promise<void> }>;
  /** One line per API exchange the activities made (never headers or bodies). */
  apiLog: string[];
  /** How the workers follow bought products (undefined: they do not); workers in child processes are given it too. */
  provisioning: ProvisioningPlan | undefined;
  stop(): Promise<void>;
}

export interface SimCredentials {
  baseUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
}

export function simCredentials(sim: Simulator): SimCredentials {
  return { baseUrl: sim.baseUrl, authUrl: sim.authUrl, clientId: sim.clientId, clientSecret: sim.clientSecret };
}

/** The real activities against the simulator's staging key, as the engine's workers (in-process or not) run them. */
export function createTestActivities(
  options: SimCredentials & {
    repository: Repository;
    orderRequests: OrderRequestReader;
    /** MVE_ACTION_KEY as the workers hold it (each run's admission checks tickets and carried state with it). */
    actionKeys: Keyring;
    log?: (line: string) => void;
    /** The workers' approval policies (TEST_POLICIES_IN_FORCE when left out). */
    policies?: PoliciesInForce;
    /** How the workers follow bought products (MVE_FOLLOW_PROVISIONING…); left out, they do not. */
    provisioning?: ProvisioningPlan;
  } & ApproverWebhookOptions,
): {
  apiClient: ApiClient;
  activities: OrderActivities;
} {
  const apiClient = createApiClient({
    config: {
      environment: 'staging',
      baseUrl: options.baseUrl,
      authUrl: options.authUrl,
      clientId: options.clientId,
      clientSecret: new Secret(options.clientSecret),
      connectTimeoutMs: 2_000,
      responseTimeoutMs: 5_000,
    },
    rateLimit: { maxWaits: 0, maxWaitMs: 0 },
    ...(options.log ? { log: (entry: object) => options.log!(JSON.stringify(entry)) } : {}),
  });
  const activities = createEnvironmentActivities({
    apiClient,
    repository: options.repository,
    kindMap: SIM_KIND_MAP,
    policies: options.policies ?? TEST_POLICIES_IN_FORCE,
    callbackSecret: new Secret(CALLBACK_SECRET),
    // The test ticket system listens on loopback over plain http, as a dev one would.
    callbackPolicy: callbackPolicyFromEnv({
      MVE_CALLBACK_ALLOW_HTTP: 'true',
      MVE_CALLBACK_ALLOWED_NETWORKS: '127.0.0.0/8,::1',
    }),
    callbackTimeoutMs: 2_000,
    orderRequests: options.orderRequests,
    actionKeys: options.actionKeys,
    ...(options.approverWebhookUrl ? { approverWebhookUrl: options.approverWebhookUrl } : {}),
    ...(options.consoleUrl ? { consoleUrl: options.consoleUrl } : {}),
    ...(options.provisioning ? { provisioning: options.provisioning } : {}),
  });
  return { apiClient, activities };
}

/** MVE_APPROVER_WEBHOOK_URL and MVE_CONSOLE_URL, as the engine's workers would read them. */
export interface ApproverWebhookOptions {
  approverWebhookUrl?: string;
  consoleUrl?: string;
}

export interface EngineOptions extends ApproverWebhookOptions {
  tokenTtlSeconds?: number;
  /** false: no worker is started with the engine (tests that run their own, e.g. in a child process). */
  worker?: boolean;
  /** The workers' workflow cache (MVE_WORKFLOW_CACHE_SIZE); the default when left out. */
  maxCachedWorkflows?: number;
  /** The Temporal to run on (the real server when left out; `time-skipping` to skip time): see ./temporal.ts. */
  temporal?: TestTemporalKind;
  /** The workers' approval policies (TEST_POLICIES_IN_FORCE when left out), e.g. deadlines in seconds on a real server. */
  policies?: PoliciesInForce;
  /**
   * How the workers follow bought products until they are live. Left out, they do not, and orders end at BOUGHT: the
   * tests of everything up to the buy read as the spec's API, which shows no provisioning after DEPLOYABLE.
   */
  provisioning?: ProvisioningPlan;
  /** The simulator's provisioning times (its defaults when left out). */
  simProvisioning?: SimulatorOptions['provisioning'];
}

export async function startOrderEngine(pg: TestPostgres, options: EngineOptions = {}): Promise<OrderEngine> {
  const services = await startServices(pg, options);
  const { temporal, sim, repository, keyring } = services;
  const { client } = temporal;
  const orderRequests = temporalOrderRequests(client);
  const apiLog: string[] = [];
  const actionKeysText = `test-action:${randomBytes(32).toString('base64')}`;
  const actionKeys = Keyring.fromText(actionKeysText, 'test', 'action keys');
  const { apiClient, activities } = createTestActivities({
    ...simCredentials(sim),
    repository,
    orderRequests,
    actionKeys,
    log: (line) => apiLog.push(line),
    ...(options.policies ? { policies: options.policies } : {}),
    ...(options.approverWebhookUrl ? { approverWebhookUrl: options.approverWebhookUrl } : {}),
    ...(options.consoleUrl ? { consoleUrl: options.consoleUrl } : {}),
    ...(options.provisioning ? { provisioning: options.provisioning } : {}),
  });
  await orderWorkflowBundle(actionKeys);

  const startWorker = () => startTestWorker(temporal, { activities, keyring, actionKeys }, options);
  const first = options.worker === false ? undefined : await startWorker();
  const orders = new OrderClient({
    client,
    taskQueue: TASK_QUEUE,
    kindMap: SIM_KIND_MAP,
    actionKeys,
    tickets: repository,
    // Signed at the server's time, which the tests skip ahead (a signature's age is judged by the workflow's clock).
    clock: () => temporal.env.currentTimeMs(),
  });
  const intake = new OrderIntake({ orders, repository, fingerprintKeys: actionKeys, kindMap: SIM_KIND_MAP });

  const engine: OrderEngine = {
    ...services,
    apiClient,
    activities,
    orderRequests,
    orders,
    intake,
    ...ticketDesk({ intake, repository, actionKeys, client }),
    client,
    actionKeys,
    actionKeysText,
    startWorker,
    workers: first ? [first] : [],
    apiLog,
    provisioning: options.provisioning,
    stop: () => stopEngine(engine),
  };
  return engine;
}

/** What the engine runs on: Temporal with the order search attributes, the simulator, a database with the approvers. */
async function startServices(
  pg: TestPostgres,
  options: EngineOptions,
): Promise<Pick<OrderEngine, 'temporal' | 'sim' | 'db' | 'repository' | 'keyring' | 'codecKeys'>> {
  const codecKeys = `test:${randomBytes(32).toString('base64')}`;
  const keyring = Keyring.fromText(codecKeys);
  const dataConverter = encryptingDataConverter(keyring);
  // The environment's client: on the time-skipping server, waiting for a result lets time skip (as tests expect).
  const temporal = await startTemporalTestEnv({
    client: { dataConverter },
    ...(options.temporal ? { server: options.temporal } : {}),
  });
  await temporal.addSearchAttributes({
    OrderStatus: 'Keyword',
    TicketId: 'Keyword',
    Environment: 'Keyword',
    MonthlyRate: 'Double',
  });
  const sim = await startSimulator({
    tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
    ...(options.simProvisioning ? { provisioning: options.simProvisioning } : {}),
  });
  const db = await pg.database();
  const repository = createRepository(db.sql);
  for (const approver of APPROVERS) await repository.addApprover({ ...approver, roles: [...approver.roles] });
  return { temporal, sim, db, repository, keyring, codecKeys };
}

/** A worker for the staging queue on the engine's Temporal, running until it is shut down. */
async function startTestWorker(
  temporal: TemporalTestEnv,
  keys: { activities: OrderActivities; keyring: Keyring; actionKeys: Keyring },
  options: EngineOptions,
): Promise<{ worker: Worker; running: Promise<void> }> {
  const worker = await createOrderWorker({
    connection: temporal.nativeConnection,
    namespace: temporal.namespace,
    taskQueue: TASK_QUEUE,
    environment: 'staging',
    activities: keys.activities,
    codecKeys: keys.keyring,
    actionKeys: keys.actionKeys,
    ...(options.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: options.maxCachedWorkflows }),
  });
  return { worker, running: worker.run() };
}

/** The engine's ways in for tickets: the intake as the API takes orders, and registering a ticket as it does. */
function ticketDesk(deps: {
  intake: OrderIntake;
  repository: Repository;
  actionKeys: Keyring;
  client: Client;
}): Pick<OrderEngine, 'submit' | 'registerTicket' | 'ticket' | 'records' | 'startRegistered'> {
  const { intake, repository, actionKeys, client } = deps;
  const registerTicket = async ({ request, submittedBy = TEST_SUBMITTER }: OrderWorkflowInput): Promise<void> => {
    const keyId = actionKeys.currentKeyId;
    await repository.registerTicket({
      ticketId: request.ticketId,
      workflowId: workflowOf(request.ticketId, submittedBy),
      environment: request.environment,
      requestedBy: request.requestedBy,
      submittedBy,
      fingerprint: ticketFingerprint(actionKeys, keyId, request)!,
      fingerprintKeyId: keyId,
    });
    await repository.recordOrderReceived({
      workflowId: workflowOf(request.ticketId, submittedBy),
      ticketId: request.ticketId,
      environment: request.environment,
      requestedBy: request.requestedBy,
      request: redactOrderRequest(request),
    });
  };
  const ticket = async (ticketId: string): Promise<TicketRecord | null> => {
    const found = await repository.findTickets({ ticketId, workflowId: workflowOf(ticketId) });
    const named = found.filter((each) => each.ticketId === ticketId);
    if (named.length > 1) throw new Error(`ticket id ${ticketId} was used by ${named.length} submitters in this test`);
    return named[0] ?? null;
  };
  return {
    async submit(body, submittedBy = TEST_SUBMITTER) {
      const { created, orderId, ticket: registered, warnings } = await intake.submit(body, submittedBy);
      if (!created) throw new DuplicateOrderError(registered.ticketId);
      return { workflowId: registered.workflowId, orderId, ticketId: registered.ticketId, warnings };
    },
    registerTicket,
    ticket,
    async records(ticketId) {
      const found = await ticket(ticketId);
      return found ? repository.getOrder(found.workflowId) : null;
    },
    async startRegistered(input) {
      const { request } = input;
      await registerTicket(input);
      return client.workflow.start('orderWorkflow', {
        workflowId: workflowOf(request.ticketId, input.submittedBy ?? TEST_SUBMITTER),
        taskQueue: orderTaskQueue(TASK_QUEUE, request.environment),
        args: [{ submittedBy: TEST_SUBMITTER, ...input }],
      });
    },
  };
}

/** Shuts down every worker (and records the histories when asked to), then what the engine runs on. */
async function stopEngine(engine: OrderEngine): Promise<void> {
  for (const { worker, running } of engine.workers) {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
  }
  const recordTo = process.env[RECORD_HISTORIES_VARIABLE];
  if (recordTo) await recordHistories(engine, recordTo);
  engine.apiClient.close();
  await engine.sim.close();
  await engine.temporal.teardown();
}

/**
 * Set to a folder, every engine writes the history of each order it ran there when it stops (one JSON file per
 * order, with the codec keys to read it): the replay fixtures of test/orders/replay-recorded.test.ts, recorded
 * from the suites that drive orders (docs/order-workflow.md, "Changing the workflow"), each named after the server
 * that ran it (`real.mve-order-….json`, `time-skipping.mve-order-….json`).
 */
export const RECORD_HISTORIES_VARIABLE = 'MVE_RECORD_HISTORIES';

async function recordHistories(engine: OrderEngine, folder: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  const prefix = `${engine.temporal.kind}.`;
  for (const execution of await orderRuns(engine)) {
    const history = await engine.client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    const file = path.join(folder, `${prefix}${execution.workflowId}.json`);
    await writeFile(
      file,
      JSON.stringify({ workflowId: execution.workflowId, codecKeys: engine.codecKeys, history }) + '\n',
    );
  }
}

/**
 * Every run of the order workflow on the engine's Temporal: by a visibility query, or on the Java time-skipping test
 * server, which has no ListWorkflowExecutions, by its listings of open and closed runs.
 */
async function orderRuns(engine: OrderEngine): Promise<Array<{ workflowId: string; runId: string }>> {
  const runs: Array<{ workflowId: string; runId: string }> = [];
  try {
    for await (const { workflowId, runId } of engine.client.workflow.list({ query: "WorkflowType = 'orderWorkflow'" }))
      runs.push({ workflowId, runId });
    return runs;
  } catch (error) {
    if ((error as { cause?: { code?: number } }).cause?.code !== GrpcStatus.UNIMPLEMENTED) throw error;
  }
  const service = engine.client.connection.workflowService;
  const request = { namespace: engine.temporal.namespace, typeFilter: { name: 'orderWorkflow' } };
  for (const list of [service.listOpenWorkflowExecutions, service.listClosedWorkflowExecutions]) {
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await list.call(service, { ...request, ...(nextPageToken ? { nextPageToken } : {}) });
      for (const { execution } of page.executions ?? [])
        runs.push({ workflowId: execution!.workflowId!, runId: execution!.runId! });
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
  }
  return runs;
}

/** Replays the history of every order this engine ran with a fresh copy of the workflow code; returns the count. */
export async function replayEveryHistory(engine: OrderEngine): Promise<{ replayed: number; failures: string[] }> {
  const histories: Array<{ workflowId: string; history: unknown }> = [];
  for (const execution of await orderRuns(engine)) {
    const history = await engine.client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    histories.push({ workflowId: execution.workflowId, history });
  }
  const failures: string[] = [];
  const results = Worker.runReplayHistories(
    {
      workflowBundle: await orderWorkflowBundle(engine.actionKeys),
      dataConverter: workerDataConverter(engine.keyring),
    },
    histories as Parameters<typeof Worker.runReplayHistories>[1],
  );
  for await (const result of results) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return { replayed: histories.length, failures };
}

export interface CallbackReceiver {
  url: string;
  /** Notifications whose signature checked out, in arrival order. */
  received: TicketNotification[];
  /** Requests whose signature did not check out. */
  badSignatures: number;
  close(): Promise<void>;
}

/** A ticket system on loopback that checks each callback's HMAC signature, as a real one would. */
export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const receiver: CallbackReceiver = { url: '', received: [], badSignatures: 0, close: () => Promise.resolve() };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const timestamp = String(request.headers[TIMESTAMP_HEADER] ?? '');
      const expected = signNotification(new Secret(CALLBACK_SECRET), timestamp, body);
      if (request.headers[SIGNATURE_HEADER] === expected)
        receiver.received.push(JSON.parse(body) as TicketNotification);
      else receiver.badSignatures++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tickets`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}
