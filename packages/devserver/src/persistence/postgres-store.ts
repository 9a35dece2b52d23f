/**
 * The durable store: the devserver's state in PostgreSQL, in a schema of its own (default `devserver`).
 *
 * The engine keeps working on the same in-memory objects as with the in-memory store (this class extends
 * it); what changes is marked (`touch`), and `commit()` writes every change made so far in one transaction:
 * new history events (inserted, never updated), the changed runs' rows (status, visibility, the record of
 * what history does not say, see ./record.ts), namespaces, schedules, forgotten runs. The gRPC layer awaits `commit()`
 * before it answers any call, so what a client or worker is told has been committed; changes made by calls
 * that run at the same time share one transaction (group commit). On open, the schema is created if
 * missing, runs past retention are deleted, and every other run is rebuilt from its history and record.
 *
 * One server per schema: it holds an advisory lock for as long as it runs.
 */
import postgres from 'postgres';
import { randomUUID } from 'node:crypto';
import type { Execution } from '../execution.js';
import type { LogLevel } from '../log-level.js';
import { ExecutionStatus } from '../proto.js';
import { InMemoryStore } from '../store.js';
import type { ExecutionStore, HistoryOptions, NamespaceRecord, StoredSchedule } from '../store.js';
import type { SearchAttributeType } from '../visibility/search-attributes.js';
import { ScheduleRows } from '../schedules/persistence.js';
import { encodeEvent, encodeMessage, ownedBytes, TYPES } from './codec.js';
import { loadExecution, toRecord } from './record.js';
import type { ExecutionRow } from './record.js';
import { createSchema, DEFAULT_SCHEMA, SCHEMA_VERSION, tables, validSchemaName } from './schema.js';
import type { Tables } from './schema.js';
import type { PackedSearchAttributes } from '../packed-message.js';

export interface PostgresStoreOptions extends HistoryOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** The schema the devserver's tables live in (created if missing); default `devserver`. */
  schema?: string;
  log?: (line: string, level: LogLevel) => void;
  /** How long to wait for another server (or a killed one's session) to let go of the schema; default 15 s. */
  lockTimeoutMs?: number;
}

/** What was loaded on open. */
export interface LoadReport {
  openRuns: number;
  closedRuns: number;
  /** Closed runs past retention, deleted instead of loaded. */
  expiredRuns: number;
  events: number;
  ms: number;
}

/** What the database holds of a run, to write only what changed. */
interface Saved {
  events: number;
  record: string;
  status: number;
  closeTime: number | undefined;
  memo: unknown;
  memoBytes: Buffer | null;
  searchAttributes: PackedSearchAttributes;
}

type Sql = postgres.Sql;
type Reserved = postgres.ReservedSql;

const EVENT_ROWS_PER_INSERT = 10_000; // 4 parameters a row, under PostgreSQL's 65,535
const RETRY_FLUSH_MS = 1000;

/** Kept in `saved` between writes, so in bytes of their own. */
const bytesOrNull = (typeName: string, value: object | null | undefined): Buffer | null =>
  value ? ownedBytes(encodeMessage(typeName, value)) : null;

export class PostgresStore extends InMemoryStore implements ExecutionStore {
  readonly location: string;
  readonly schema: string;
  /** Filled in by open(). */
  loadReport: LoadReport = { openRuns: 0, closedRuns: 0, expiredRuns: 0, events: 0, ms: 0 };

  private readonly saved = new Map<string, Saved>();
  private readonly dirty = new Set<Execution>();
  private readonly deleted = new Set<string>();
  private readonly dirtyNamespaces = new Set<string>();
  private readonly schedules = new ScheduleRows();
  private loading = false;
  private closed = false;
  /** The flush being written, and the next one (which takes everything changed when it starts). */
  private writing: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private backgroundScheduled = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private clockOffset: { get(): number; set(ms: number): void } | undefined;
  private savedClockOffset = 0;

  private constructor(
    private readonly sql: Sql,
    private readonly lock: Reserved,
    private readonly t: Tables,
    schema: string,
    url: string,
    private readonly log: (line: string, level: LogLevel) => void,
    histories: HistoryOptions,
  ) {
    super(histories);
    this.schema = schema;
    this.location = `PostgreSQL ${serverName(url)}, schema ${schema}`;
  }

  /** Connects, takes the schema's lock, creates the schema if missing and loads every retained run. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const schema = options.schema ?? DEFAULT_SCHEMA;
    if (!validSchemaName(schema))
      throw new Error(
        `devserver schema ${JSON.stringify(schema)}: use lower-case letters, digits and _ (starting with a letter or _)`,
      );
    const log = options.log ?? (() => {});
    const sql = postgres(options.url, { max: 4, connect_timeout: 10, max_lifetime: 0, onnotice: () => {} });
    let lock: Reserved | undefined;
    let store: PostgresStore | undefined;
    try {
      lock = await sql.reserve();
      const lockKey = `mve-orders devserver ${schema}`;
      await acquireLock(
        lock,
        lockKey,
        options.lockTimeoutMs ?? 15_000,
        `another devserver is using schema ${schema} of PostgreSQL ${serverName(options.url)}`,
      );
      const t = tables(sql, schema);
      await createSchema(sql, schema, t);
      store = new PostgresStore(sql, lock, t, schema, options.url, log, options);
      await store.load();
      return store;
    } catch (error) {
      store?.histories.spill?.close();
      lock?.release();
      await sql.end({ timeout: 1 }).catch(() => {});
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`devserver: cannot use PostgreSQL ${serverName(options.url)} (schema ${schema}): ${reason}`, {
        cause: error,
      });
    }
  }

  // --- the store interface: reads come from memory, changes are marked for the next commit

  override insertRun(execution: Execution): void {
    super.insertRun(execution);
    if (!this.loading) this.touch(execution);
  }

  override deleteRun(runId: string): void {
    const execution = this.getRun(runId);
    super.deleteRun(runId);
    if (!execution || this.loading) return;
    this.dirty.delete(execution);
    if (this.saved.has(runId)) this.deleted.add(runId);
    this.saved.delete(runId);
    this.scheduleBackgroundFlush();
  }

  override addNamespace(name: string, retentionMs: number): NamespaceRecord {
    const record = super.addNamespace(name, retentionMs);
    if (!this.loading) this.namespaceChanged(record);
    return record;
  }

  touch(execution: Execution): void {
    this.dirty.add(execution);
    this.scheduleBackgroundFlush();
  }

  namespaceChanged(record: NamespaceRecord): void {
    this.dirtyNamespaces.add(record.name);
    this.scheduleBackgroundFlush();
  }

  scheduleChanged(namespace: string, scheduleId: string, record: () => object): void {
    this.schedules.markChanged(namespace, scheduleId, record);
    this.scheduleBackgroundFlush();
  }

  scheduleDeleted(namespace: string, scheduleId: string): void {
    this.schedules.markDeleted(namespace, scheduleId);
    this.scheduleBackgroundFlush();
  }

  loadedSchedules(): StoredSchedule[] {
    return this.schedules.loaded;
  }

  /** With time skipping, the server's clock offset is kept too, so server time never runs backwards. */
  attachClock(clock: { get(): number; set(ms: number): void }): void {
    this.clockOffset = clock;
    clock.set(this.savedClockOffset);
  }

  commit(): Promise<void> {
    if (!this.hasPending()) return this.writing ?? Promise.resolve();
    if (!this.next) {
      const previous = this.writing ?? Promise.resolve();
      this.next = previous
        .catch(() => {})
        .then(() => {
          // the snapshot is taken here, synchronously: whoever called commit() before now is in it
          this.next = undefined;
          const flush = this.flush();
          this.writing = flush;
          void flush.then(
            () => this.writing === flush && (this.writing = undefined),
            () => this.writing === flush && (this.writing = undefined),
          );
          return flush;
        });
    }
    return this.next;
  }

  override async close(): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    try {
      await this.commit();
    } catch (error) {
      this.log(`changes made just before shutdown could not be saved: ${(error as Error).message}`, 'warn');
    }
    this.closed = true;
    // Ending its session (sql.end) releases the schema's lock: no unlock query. Asking for one would also be unsafe: on
    // a reserved connection whose server has gone (PostgreSQL stopped first), postgres.js writes to a socket it has
    // already dropped and throws where no one can catch it, ending the process.
    this.lock.release();
    await this.sql.end({ timeout: 5 });
    await super.close();
  }

  // --- writing

  private hasPending(): boolean {
    return (
      this.dirty.size > 0 ||
      this.deleted.size > 0 ||
      this.dirtyNamespaces.size > 0 ||
      this.schedules.pending ||
      this.clockOffsetChanged()
    );
  }

  private clockOffsetChanged(): boolean {
    return this.clockOffset !== undefined && this.clockOffset.get() !== this.savedClockOffset;
  }

  /** Changes made outside any call (a timer fired, a timeout passed) are written without waiting for one. */
  private scheduleBackgroundFlush(): void {
    if (this.backgroundScheduled || this.closed || this.loading) return;
    this.backgroundScheduled = true;
    setImmediate(() => {
      this.backgroundScheduled = false;
      this.commit().catch((error: unknown) => {
        this.log(`saving to PostgreSQL failed (retrying in ${RETRY_FLUSH_MS} ms): ${(error as Error).message}`, 'warn');
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => this.scheduleBackgroundFlush(), RETRY_FLUSH_MS);
      });
    });
  }

  /**
   * Takes everything marked (synchronously, so the snapshot is of one instant) and writes it in one
   * transaction. On failure the marks are put back, to be written by the next commit.
   */
  private flush(): Promise<void> {
    const executions = [...this.dirty];
    this.dirty.clear();
    const deleted = [...this.deleted];
    this.deleted.clear();
    const namespaces = [...this.dirtyNamespaces];
    this.dirtyNamespaces.clear();
    const clockOffset = this.clockOffsetChanged() ? this.clockOffset!.get() : undefined;
    const scheduleWrites = this.schedules.take();

    const inserts: Record<string, unknown>[] = [];
    const updates: Record<string, unknown>[] = [];
    const events: { run_id: string; event_id: number; event_type: number; data: Buffer }[] = [];
    const undo: (() => void)[] = [];
    for (const execution of executions) {
      if (this.getRun(execution.runId) !== execution) continue; // forgotten since it was marked
      const before = this.saved.get(execution.runId);
      for (const event of execution.history.slice(before?.events ?? 0))
        events.push({
          run_id: execution.runId,
          event_id: Number(event.eventId),
          event_type: event.eventType,
          data: encodeEvent(event),
        });
      const recordObject = toRecord(execution);
      const record = JSON.stringify(recordObject);
      const memoBytes =
        before && before.memo === execution.memo ? before.memoBytes : bytesOrNull(TYPES.memo, execution.memo);
      const searchAttributesBytes = execution.searchAttributes.encoded;
      const now: Saved = {
        events: execution.history.length,
        record,
        status: execution.status,
        closeTime: execution.closeTime,
        memo: execution.memo,
        memoBytes,
        searchAttributes: execution.searchAttributes,
      };
      const row = {
        run_id: execution.runId,
        status: execution.status,
        close_time: execution.closeTime === undefined ? null : new Date(execution.closeTime),
        history_length: execution.history.length,
        memo: memoBytes,
        search_attributes: searchAttributesBytes,
        // postgres.js serializes a jsonb parameter itself
        state: this.sql.json(recordObject as unknown as postgres.JSONValue),
      };
      if (!before) {
        inserts.push({
          ...row,
          namespace: execution.namespace,
          workflow_id: execution.workflowId,
          first_run_id: execution.firstRunId,
          workflow_type: execution.workflowType,
          task_queue: execution.taskQueue,
          start_time: new Date(execution.startTime),
          execution_time: new Date(execution.executionTime),
          start_request: execution.startRequest.encoded,
        });
      } else if (
        before.events !== now.events ||
        before.record !== record ||
        before.status !== now.status ||
        before.closeTime !== now.closeTime ||
        before.memoBytes !== memoBytes ||
        before.searchAttributes !== now.searchAttributes
      ) {
        updates.push(row);
      } else {
        continue;
      }
      this.saved.set(execution.runId, now);
      undo.push(() => {
        if (this.getRun(execution.runId) !== execution) return;
        if (before) this.saved.set(execution.runId, before);
        else this.saved.delete(execution.runId);
        this.dirty.add(execution);
      });
    }
    const namespaceRows = namespaces
      .map((name) => this.getNamespace(name))
      .filter((record): record is NamespaceRecord => record !== undefined)
      .map((record) => ({
        name: record.name,
        id: record.id,
        retention_ms: record.retentionMs,
        search_attributes: Object.fromEntries(record.searchAttributes),
      }));
    if (
      !inserts.length &&
      !updates.length &&
      !events.length &&
      !deleted.length &&
      !namespaceRows.length &&
      clockOffset === undefined &&
      scheduleWrites.empty
    )
      return Promise.resolve();
    if (clockOffset !== undefined) this.savedClockOffset = clockOffset;

    const { t } = this;
    return this.sql
      .begin((tx) => {
        const queries: postgres.PendingQuery<postgres.Row[]>[] = [];
        if (deleted.length) {
          queries.push(tx`DELETE FROM ${t.historyEvents} WHERE run_id IN ${tx(deleted)}`);
          queries.push(tx`DELETE FROM ${t.executions} WHERE run_id IN ${tx(deleted)}`);
        }
        for (const row of namespaceRows)
          queries.push(tx`
            INSERT INTO ${t.namespaces} (name, id, retention_ms, search_attributes)
            VALUES (${row.name}, ${row.id}, ${row.retention_ms}, ${tx.json(row.search_attributes)})
            ON CONFLICT (name) DO UPDATE SET retention_ms = excluded.retention_ms, search_attributes = excluded.search_attributes`);
        if (inserts.length) queries.push(tx`INSERT INTO ${t.executions} ${tx(inserts, ...INSERT_COLUMNS)}`);
        for (const row of updates)
          queries.push(tx`
            UPDATE ${t.executions} SET status = ${row.status as number}, close_time = ${row.close_time as Date | null},
              history_length = ${row.history_length as number}, memo = ${row.memo as Buffer | null},
              search_attributes = ${row.search_attributes as Buffer | null}, state = ${row.state as postgres.Parameter}
            WHERE run_id = ${row.run_id as string}`);
        for (let i = 0; i < events.length; i += EVENT_ROWS_PER_INSERT)
          queries.push(
            tx`INSERT INTO ${t.historyEvents} ${tx(events.slice(i, i + EVENT_ROWS_PER_INSERT), 'run_id', 'event_id', 'event_type', 'data')}`,
          );
        queries.push(...scheduleWrites.queries(tx, t.schedules));
        if (clockOffset !== undefined)
          queries.push(tx`
            INSERT INTO ${t.meta} (key, value) VALUES ('clock_offset_ms', ${tx.json(clockOffset)})
            ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
        return queries;
      })
      .then(
        () => {},
        (error: unknown) => {
          for (const restore of undo) restore();
          for (const runId of deleted) if (!this.getRun(runId)) this.deleted.add(runId);
          for (const name of namespaces) this.dirtyNamespaces.add(name);
          scheduleWrites.restore();
          if (clockOffset !== undefined) this.savedClockOffset = Number.NaN;
          throw error;
        },
      );
  }

  // --- loading

  private async load(): Promise<void> {
    const started = performance.now();
    const { t, sql } = this;
    const [version] = await sql<{ value: number }[]>`SELECT value FROM ${t.meta} WHERE key = 'schema_version'`;
    if (version && Number(version.value) > SCHEMA_VERSION)
      throw new Error(
        `the schema was written by a newer devserver (version ${version.value}; this one knows ${SCHEMA_VERSION})`,
      );
    const [offset] = await sql<{ value: number }[]>`SELECT value FROM ${t.meta} WHERE key = 'clock_offset_ms'`;
    this.savedClockOffset = offset ? Number(offset.value) : 0;

    this.loading = true;
    try {
      for (const row of await sql<
        { name: string; id: string; retention_ms: string; search_attributes: Record<string, SearchAttributeType> }[]
      >`
        SELECT name, id, retention_ms, search_attributes FROM ${t.namespaces}`) {
        const record = super.addNamespace(row.name, Number(row.retention_ms));
        record.id = row.id || randomUUID();
        for (const [name, type] of Object.entries(row.search_attributes ?? {})) record.searchAttributes.set(name, type);
      }

      const rows = await sql<ExecutionRow[]>`
        SELECT run_id, namespace, workflow_id, first_run_id, workflow_type, task_queue, status, start_time, execution_time,
               close_time, memo, search_attributes, start_request, state
        FROM ${t.executions} ORDER BY seq`;
      const serverNow = Date.now() + this.savedClockOffset;
      const expired: string[] = [];
      const kept: ExecutionRow[] = [];
      for (const row of rows) {
        const retentionMs = this.getNamespace(row.namespace)?.retentionMs ?? 0;
        if (
          row.status !== ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING &&
          row.close_time &&
          retentionMs &&
          row.close_time.getTime() + retentionMs <= serverNow
        )
          expired.push(row.run_id);
        else kept.push(row);
      }
      if (expired.length)
        await sql.begin((tx) => [
          tx`DELETE FROM ${t.historyEvents} WHERE run_id IN ${tx(expired)}`,
          tx`DELETE FROM ${t.executions} WHERE run_id IN ${tx(expired)}`,
        ]);

      // kept encoded as they are stored: a run's history is decoded when it is first read
      const histories = new Map<string, Uint8Array[]>();
      let events = 0;
      await sql<
        { run_id: string; data: Buffer }[]
      >`SELECT run_id, data FROM ${t.historyEvents} ORDER BY run_id, event_id`.cursor(5000, (batch) => {
        for (const { run_id, data } of batch) {
          let history = histories.get(run_id);
          if (!history) histories.set(run_id, (history = []));
          history.push(data);
          events++;
        }
      });

      let openRuns = 0;
      for (const row of kept) {
        const history = this.histories.fromEncoded(histories.get(row.run_id) ?? []);
        histories.delete(row.run_id);
        const execution = loadExecution(row, history);
        this.insertRun(execution);
        if (execution.status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) openRuns++;
        this.saved.set(execution.runId, {
          events: history.length,
          record: '', // rewritten on the first change
          status: execution.status,
          closeTime: execution.closeTime,
          memo: execution.memo,
          memoBytes: row.memo,
          searchAttributes: execution.searchAttributes,
        });
      }
      await this.schedules.load(sql, t.schedules);
      this.loadReport = {
        openRuns,
        closedRuns: kept.length - openRuns,
        expiredRuns: expired.length,
        events,
        ms: Math.round(performance.now() - started),
      };
    } finally {
      this.loading = false;
    }
  }
}

const INSERT_COLUMNS = [
  'run_id',
  'namespace',
  'workflow_id',
  'first_run_id',
  'workflow_type',
  'task_queue',
  'status',
  'start_time',
  'execution_time',
  'close_time',
  'history_length',
  'memo',
  'search_attributes',
  'start_request',
  'state',
] as const;

async function acquireLock(lock: Reserved, key: string, timeoutMs: number, busy: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await lock<{ locked: boolean }[]>`SELECT pg_try_advisory_lock(hashtext(${key})) AS locked`;
    if (row?.locked) return;
    // a killed server's session ends when PostgreSQL notices its connection is gone: wait a little
    if (Date.now() >= deadline)
      throw new Error(`${busy} (waited ${Math.round(timeoutMs / 1000)} s); stop it first, or use another --schema`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The server and database a URL names, `host:port/database`, for messages and the store's `location`: which
 * PostgreSQL it is, without the user or the password (a URL's other parts may hold credentials too).
 */
export function serverName(url: string): string {
  try {
    const { hostname, port, pathname } = new URL(url);
    return `${hostname}:${port || 5432}/${decodeURIComponent(pathname.slice(1))}`;
  } catch {
    return '(a database URL that does not parse)';
  }
}
