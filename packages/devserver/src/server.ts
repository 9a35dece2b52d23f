/** Assembles the server: store, clock, matching and engine behind the gRPC services, on one port. */
import * as grpc from '@grpc/grpc-js';
import { Clock } from './clock.js';
import { EngineContext } from './engine/context.js';
import type { LogLevel } from './log-level.js';
import { HistoryLimits } from './engine/history-limits.js';
import { DEFAULT_LIMITS } from './engine/limits.js';
import type { Limits } from './engine/limits.js';
import { Watchers } from './engine/watchers.js';
import { installWorkflowTasks } from './engine/workflow-tasks.js';
import { Matching } from './matching.js';
import { addService } from './rpc/grpc-server.js';
import type { RpcObserver } from './rpc/grpc-server.js';
import { operatorServiceHandlers } from './rpc/operator-service.js';
import { testServiceHandlers } from './rpc/test-service.js';
import { workflowServiceHandlers } from './rpc/workflow-service.js';
import { resumeStoredRuns } from './engine/resume.js';
import { scheduleServiceHandlers } from './rpc/schedule-service.js';
import { Schedules } from './schedules/registry.js';
import { PostgresStore } from './persistence/postgres-store.js';
import { InMemoryStore } from './store.js';
import type { ExecutionStore, HistoryOptions } from './store.js';

export interface DevServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to 127.0.0.1. */
  host?: string;
  /** Registered at start, besides `default`. */
  namespace?: string;
  /** Virtual clock that jumps to the next deadline whenever nothing is in flight (see README.md, "Time skipping"). */
  timeSkipping?: boolean;
  /**
   * Receives the server's log lines: `warn` for what must not pass unnoticed (unimplemented RPCs and
   * commands, internal errors), `info` for retries, timeouts and the like. Default: warnings to stderr.
   */
  log?: (line: string, level: LogLevel) => void;
  /** How long polls and waits are held before an empty answer; default 15 s. */
  longPollMs?: number;
  /** Where executions live; default in memory (or PostgreSQL, with `databaseUrl`). */
  store?: ExecutionStore;
  /**
   * Keeps the server's state in this PostgreSQL database (schema `databaseSchema`), so a restart loses
   * nothing: every change is committed before the call that made it is answered, and open workflows carry
   * on after a restart. Without it (and without `store`) state is in memory.
   */
  databaseUrl?: string;
  /** The schema of `databaseUrl` the server's tables live in (created if missing); default `devserver`. */
  databaseSchema?: string;
  /** How long closed workflows are kept (real time); default 24 h. */
  retentionMs?: number;
  /**
   * Sticky execution, as on the real server (default true): a run's next workflow task goes to the worker that
   * has it cached, with only the new events. False: every task goes to the normal queue with the full history.
   */
  stickyExecution?: boolean;
  /**
   * The real server's size limits, each overridable (defaults in engine/limits.ts: payloads 512 KiB warn / 2 MiB
   * error, memo 2 KiB / 2 MiB, search attributes 2 KiB a value / 40 KiB in all, history 10,240 / 51,200 events
   * and 10 MiB / 50 MiB). See README.md, "Limits".
   */
  limits?: Partial<Limits>;
  /**
   * How many runs keep their history decoded, the ones read most recently (default 500); every other run keeps
   * it packed (encoded), a third of the memory, and decodes it when it is next read. See docs/scale.md.
   */
  decodedHistories?: number;
  /**
   * A folder for a scratch file (unlinked at once, gone with the process) where packed histories are kept
   * instead of memory: what keeps many parked orders small. Without it they stay in memory. See docs/scale.md.
   */
  historySpillDir?: string;
}

export interface DevServer {
  /** host:port, what TEMPORAL_ADDRESS takes. */
  address: string;
  port: number;
  namespace: string;
  timeSkipping: boolean;
  /** Unimplemented RPCs called so far, with counts. */
  unimplementedCalls(): Record<string, number>;
  /** RPCs served so far, with counts. */
  callCounts(): Record<string, number>;
  /** Workflow tasks handed out so far from normal queues and from sticky queues, and the history events they carried. */
  workflowTaskCounts(): { normal: number; sticky: number; events: number };
  /** Moves the server's clock forward, firing what falls due (tests without the TestService). */
  skipTime(ms: number): void;
  /** Where the state is kept, and what was found there at start. */
  persistence: {
    durable: boolean;
    /** "memory", or "PostgreSQL postgres://…@host/db, schema devserver" (password hidden). */
    location: string;
    /** Runs loaded at start (a durable store), open and closed. */
    openRuns: number;
    closedRuns: number;
    /** How long loading them took. */
    loadMs: number;
  };
  close(): Promise<void>;
}

const DEFAULT_NAMESPACE = 'default';

function warningsToStderr(line: string, level: LogLevel): void {
  if (level === 'warn') process.stderr.write(`[devserver] ${line}\n`);
}
const DEFAULT_RETENTION_MS = 24 * 3600_000;

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const log = (line: string, level: LogLevel = 'info') => (options.log ?? warningsToStderr)(line, level);
  const namespace = options.namespace || DEFAULT_NAMESPACE;
  const timeSkipping = options.timeSkipping ?? false;
  const loadStarted = performance.now();
  const store: ExecutionStore =
    options.store ??
    (options.databaseUrl
      ? await PostgresStore.open({
          url: options.databaseUrl,
          schema: options.databaseSchema,
          log,
          ...historyOptions(options),
        })
      : new InMemoryStore(historyOptions(options)));
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  for (const name of new Set([DEFAULT_NAMESPACE, namespace]))
    if (!store.getNamespace(name)) store.addNamespace(name, retentionMs);

  const clock = new Clock(timeSkipping, (error) =>
    log(`timer callback failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 'warn'),
  );
  if (store instanceof PostgresStore) store.attachClock(clock.offset);
  const longPollMs = options.longPollMs ?? 15_000;
  const matching = new Matching(longPollMs);
  const watchers = new Watchers();
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const ctx = new EngineContext(
    store,
    clock,
    matching,
    watchers,
    { longPollMs, queryTimeoutMs: 30_000, stickyExecution: options.stickyExecution ?? true, limits },
    log,
  );
  installWorkflowTasks(ctx);
  const historyLimits = new HistoryLimits(ctx);
  clock.afterFire = () => historyLimits.settle();
  clock.isIdle = () => ctx.canSkipTime();
  watchers.afterAnnounce = () => clock.requestSkip();
  const resumed = resumeStoredRuns(ctx);
  const schedules = new Schedules(ctx);
  schedules.resume(store.loadedSchedules?.() ?? []);
  const loadMs = Math.round(performance.now() - loadStarted);
  if (store.location)
    log(
      `state in ${store.location}: ${resumed.open} open and ${resumed.closed} closed workflow runs loaded in ${loadMs} ms`,
    );

  const calls = new Map<string, number>();
  const observer: RpcObserver = {
    log,
    unimplemented: new Map(),
    onCall: (method) => calls.set(method, (calls.get(method) ?? 0) + 1),
    afterCall: () => clock.requestSkip(),
    settle: () => historyLimits.settle(),
    // a durable store: nothing is answered before what the call changed is committed
    ...(store.commit ? { beforeAnswer: () => store.commit!() } : {}),
  };
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 128 * 1024 * 1024 });
  addService(
    server,
    'temporal.api.workflowservice.v1.WorkflowService',
    { ...workflowServiceHandlers(ctx), ...scheduleServiceHandlers(ctx, schedules) },
    observer,
  );
  addService(server, 'temporal.api.operatorservice.v1.OperatorService', operatorServiceHandlers(ctx), observer);
  addService(server, 'temporal.api.testservice.v1.TestService', timeSkipping ? testServiceHandlers(ctx) : {}, observer);

  const host = options.host ?? '127.0.0.1';
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${options.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  ).catch(async (error: unknown) => {
    schedules.stop();
    clock.close();
    ctx.stop();
    await store.close?.();
    throw error;
  });
  const hostForAddress = host.includes(':') ? `[${host}]` : host;
  return {
    address: `${hostForAddress}:${port}`,
    port,
    namespace,
    timeSkipping,
    unimplementedCalls: () => Object.fromEntries(observer.unimplemented),
    callCounts: () => Object.fromEntries(calls),
    workflowTaskCounts: () => ({ ...ctx.workflowTaskCounts }),
    skipTime: (ms) => clock.advanceTo(clock.now() + ms),
    persistence: {
      durable: Boolean(store.location),
      location: store.location ?? 'memory',
      openRuns: resumed.open,
      closedRuns: resumed.closed,
      loadMs,
    },
    close: async () => {
      matching.releaseAll();
      schedules.stop();
      watchers.releaseAll();
      clock.close();
      ctx.stop();
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 2000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      // answers still waiting for a commit have had it; what is left (nothing, or a last timer) is written now
      await store.close?.();
    },
  };
}

function historyOptions({ decodedHistories, historySpillDir }: DevServerOptions): HistoryOptions {
  return { decodedHistories, historySpillDir };
}
