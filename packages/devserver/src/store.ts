/**
 * Where executions, namespaces and search-attribute registrations live. The engine only talks to this
 * interface. The in-memory store is the default (tests); the durable one (./persistence/) keeps the same
 * objects in memory and writes every change to PostgreSQL before the RPC that made it is answered.
 */
import { randomUUID } from 'node:crypto';
import { HistoryCache } from './event-history.js';
import { HistorySpill } from './history-spill.js';
import type { Execution } from './execution.js';
import type { SearchAttributeType } from './visibility/search-attributes.js';

export interface NamespaceRecord {
  id: string;
  name: string;
  retentionMs: number;
  /** Custom search attributes registered through the OperatorService. */
  searchAttributes: Map<string, SearchAttributeType>;
}

/** A schedule as a durable store keeps it: the schedules module's JSON record (../schedules/record.ts). */
export interface StoredSchedule {
  namespace: string;
  scheduleId: string;
  record: object;
}

/** How many runs keep their history decoded (the ones read most recently); the others keep it packed. */
export const DEFAULT_DECODED_HISTORIES = 500;

export interface HistoryOptions {
  /** How many runs keep their history decoded (DEFAULT_DECODED_HISTORIES). */
  decodedHistories?: number;
  /** A folder for the scratch file the packed histories are kept in (./history-spill.ts); without it they stay in memory. */
  historySpillDir?: string;
}

export interface ExecutionStore {
  /** Every run's history is made here, so that only the runs read most recently keep theirs decoded. */
  readonly histories: HistoryCache;
  getNamespace(name: string): NamespaceRecord | undefined;
  listNamespaces(): NamespaceRecord[];
  addNamespace(name: string, retentionMs: number): NamespaceRecord;

  getRun(runId: string): Execution | undefined;
  /** The latest run of a workflow id in a namespace (running or closed). */
  getCurrentRun(namespace: string, workflowId: string): Execution | undefined;
  /** Records a new run and makes it the current one for its workflow id. */
  insertRun(execution: Execution): void;
  runsInNamespace(namespace: string): Iterable<Execution>;
  allRuns(): Iterable<Execution>;
  /** Forgets a closed run (retention). */
  deleteRun(runId: string): void;

  // Durable stores only (the in-memory store has nothing to write):
  /** Marks a run changed; it is written with the next commit. */
  touch?(execution: Execution): void;
  /** Marks a namespace changed (search attributes registered or removed). */
  namespaceChanged?(record: NamespaceRecord): void;
  /** Marks a schedule changed: `record()` is taken at the next commit and written. */
  scheduleChanged?(namespace: string, scheduleId: string, record: () => object): void;
  /** Forgets a schedule (deleted). */
  scheduleDeleted?(namespace: string, scheduleId: string): void;
  /** The schedules found when the store was opened, for the schedules module to bring back. */
  loadedSchedules?(): StoredSchedule[];
  /**
   * Resolves once every change made so far is stored (rejects when it could not be): the RPC layer awaits
   * it before answering, so what a client is told is on disk.
   */
  commit?(): Promise<void>;
  /** Writes what is pending and lets go of the database (server shutdown). */
  close?(): Promise<void>;
  /** Where the state is kept, for people (logs, the CLI). */
  readonly location?: string;
}

export class InMemoryStore implements ExecutionStore {
  private readonly namespaces = new Map<string, NamespaceRecord>();
  private readonly runs = new Map<string, Execution>();
  private readonly current = new Map<string, string>();
  private readonly byNamespace = new Map<string, Set<Execution>>();
  readonly histories: HistoryCache;

  constructor(options: HistoryOptions = {}) {
    const spill = options.historySpillDir ? new HistorySpill(options.historySpillDir) : undefined;
    this.histories = new HistoryCache(options.decodedHistories ?? DEFAULT_DECODED_HISTORIES, spill);
  }

  async close(): Promise<void> {
    this.histories.spill?.close();
  }

  getNamespace(name: string) {
    return this.namespaces.get(name);
  }

  listNamespaces() {
    return [...this.namespaces.values()];
  }

  addNamespace(name: string, retentionMs: number): NamespaceRecord {
    const record: NamespaceRecord = {
      id: randomUUID(),
      name,
      retentionMs,
      searchAttributes: new Map<string, SearchAttributeType>(),
    };
    this.namespaces.set(name, record);
    return record;
  }

  getRun(runId: string) {
    return this.runs.get(runId);
  }

  getCurrentRun(namespace: string, workflowId: string) {
    const runId = this.current.get(`${namespace}\u0000${workflowId}`);
    return runId === undefined ? undefined : this.runs.get(runId);
  }

  insertRun(execution: Execution) {
    this.runs.set(execution.runId, execution);
    this.current.set(`${execution.namespace}\u0000${execution.workflowId}`, execution.runId);
    let set = this.byNamespace.get(execution.namespace);
    if (!set) this.byNamespace.set(execution.namespace, (set = new Set()));
    set.add(execution);
  }

  runsInNamespace(namespace: string) {
    return this.byNamespace.get(namespace) ?? [];
  }

  allRuns() {
    return this.runs.values();
  }

  deleteRun(runId: string) {
    const execution = this.runs.get(runId);
    if (!execution) return;
    this.runs.delete(runId);
    execution.history.release();
    this.byNamespace.get(execution.namespace)?.delete(execution);
    const key = `${execution.namespace}\u0000${execution.workflowId}`;
    if (this.current.get(key) === runId) this.current.delete(key);
  }
}
