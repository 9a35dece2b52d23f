/**
 * What every part of the engine shares: the store, the clock, matching, watchers, logging, and the one
 * way history is written (appendEvent), with the rule that events caused from outside the workflow while
 * one of its workflow tasks is running wait until that task completes.
 */
import type { LogLevel } from '../log-level.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { BufferedEvent, Execution } from '../execution.js';
import type { Matching } from '../matching.js';
import { eventAttributesKey, ExecutionStatus, msToTimestamp } from '../proto.js';
import type { HistoryEvent } from '../proto.js';
import type { ExecutionStore, NamespaceRecord } from '../store.js';
import { notFound, requireField } from '../errors.js';
import { Visibility } from '../visibility/index.js';
import type { Limits } from './limits.js';
import type { PendingQuery } from './queries.js';
import type { Watchers } from './watchers.js';

export interface EngineOptions {
  /** How long a task poll, history long poll or update wait is held before an empty answer. */
  longPollMs: number;
  /** How long a query waits for a worker to answer. */
  queryTimeoutMs: number;
  /** Whether workers' sticky queues are used (else every workflow task carries the full history). */
  stickyExecution: boolean;
  /** Size and history limits (./limits.ts). */
  limits: Limits;
}

export class EngineContext {
  private lastTaskId = 1_000_000;
  /** Outstanding waits for a workflow's close event: with time skipping, time runs while one is open. */
  resultWaiters = 0;
  /** TestService lock count; the server starts locked, as the Java test server does. */
  timeSkippingLocks = 1;
  /** Queries waiting for their answer, by id. */
  readonly queries = new Map<string, PendingQuery>();
  /** Workflow tasks handed out from normal and sticky queues, and the history events they carried. */
  readonly workflowTaskCounts = { normal: 0, sticky: 0, events: 0 };
  private readonly retentionTimers = new Set<NodeJS.Timeout>();
  /** Runs changed since the history limits were last checked (./history-limits.ts). */
  readonly changedRuns = new Set<Execution>();
  /**
   * The runs that may have work in flight: every run changed since the last idle check found it idle (a run gets
   * work only by a change, and every change touches it). So the check looks at these, not at every parked run.
   */
  private readonly mayBeBusy = new Set<Execution>();
  /** List and Count, with each namespace's rows kept up to date from the changes reported by touch. */
  readonly visibility: Visibility;

  /**
   * Forgets a closed run once its namespace's retention has passed, in real time (so a time-skipping jump
   * never drops a history a test is about to read). A run loaded from a durable store counts from its close.
   */
  retain(execution: Execution, loaded = false): void {
    const retentionMs = this.store.getNamespace(execution.namespace)?.retentionMs ?? 0;
    if (!retentionMs) return;
    const delayMs = loaded ? Math.max(0, (execution.closeTime ?? 0) + retentionMs - this.clock.now()) : retentionMs;
    const timer = setTimeout(
      () => {
        this.retentionTimers.delete(timer);
        this.store.deleteRun(execution.runId);
        this.visibility.changed(execution);
      },
      Math.min(delayMs, 2 ** 31 - 1),
    );
    timer.unref();
    this.retentionTimers.add(timer);
  }

  /** Marks a run changed: a durable store writes it with the next commit (in memory, nothing to do). */
  touch(execution: Execution): void {
    this.store.touch?.(execution);
    this.changedRuns.add(execution);
    this.mayBeBusy.add(execution);
    this.visibility.changed(execution);
  }

  /** Event task ids keep growing across restarts of a durable server. */
  observeTaskId(taskId: number): void {
    if (taskId > this.lastTaskId) this.lastTaskId = taskId;
  }

  /** Stops background work (server shutdown). */
  stop(): void {
    for (const timer of this.retentionTimers) clearTimeout(timer);
    this.retentionTimers.clear();
  }

  /** Hooks the workflow-task module installs, so other modules can ask for a workflow task. */
  scheduleWorkflowTask: (execution: Execution, options?: { speculative?: boolean }) => void = () => {
    throw new Error('workflow tasks not wired');
  };

  constructor(
    readonly store: ExecutionStore,
    readonly clock: Clock,
    readonly matching: Matching,
    readonly watchers: Watchers,
    readonly options: EngineOptions,
    readonly log: (line: string, level?: LogLevel) => void,
  ) {
    this.visibility = new Visibility(store);
    // runs loaded from a durable store may have had work in flight when it stopped
    for (const execution of store.allRuns()) this.mayBeBusy.add(execution);
  }

  /** The namespace a request names; INVALID_ARGUMENT when empty, NOT_FOUND when unknown. */
  requireNamespace(name: string | null | undefined): NamespaceRecord {
    const namespace = requireField(name, 'namespace');
    const record = this.store.getNamespace(namespace);
    if (!record) throw notFound(`Namespace ${namespace} is not found.`);
    return record;
  }

  newRunId(): string {
    return randomUUID();
  }

  /** An event with the next event id, not yet in history (appendEvent, or a transient workflow task). */
  makeEvent(
    execution: Execution,
    eventType: number,
    attributes: object,
    extra: object = {},
    idOffset = 0,
  ): HistoryEvent {
    return {
      eventId: execution.history.length + 1 + idOffset,
      eventTime: msToTimestamp(this.clock.now()),
      eventType,
      version: 0,
      taskId: ++this.lastTaskId,
      [eventAttributesKey(eventType)]: attributes,
      ...extra,
    };
  }

  appendEvent(execution: Execution, eventType: number, attributes: object, extra: object = {}): HistoryEvent {
    const task = execution.workflowTask;
    if (task?.transientEvents && task.state === 'scheduled') this.writeTransientTask(execution);
    const event = this.makeEvent(execution, eventType, attributes, extra);
    execution.history.push(event);
    this.touch(execution);
    this.watchers.changed(historyKey(execution.runId));
    return event;
  }

  /**
   * Writes a transient workflow task's events to history: when it completes, or (still only scheduled)
   * when another event must be written first. A started one is written as handed out, ids unchanged.
   */
  writeTransientTask(execution: Execution): void {
    const task = execution.workflowTask;
    const events = task?.transientEvents;
    if (!task || !events) return;
    task.transientEvents = undefined;
    if (task.state === 'scheduled') {
      events[0]!.eventId = execution.history.length + 1;
      task.scheduledEventId = events[0]!.eventId;
    }
    execution.history.push(...events);
    this.touch(execution);
    this.watchers.changed(historyKey(execution.runId));
  }

  /**
   * Records events caused from outside the workflow (signal, activity result, timer): at once, followed by
   * a new workflow task, or after the running workflow task completes.
   */
  external(execution: Execution, events: BufferedEvent[]): void {
    if (!isRunning(execution)) return;
    this.touch(execution);
    if (execution.workflowTask?.state === 'started') {
      execution.buffered.push(...events);
      return;
    }
    this.writeEvents(execution, events);
    this.scheduleWorkflowTask(execution);
  }

  /** Writes the buffered events; returns whether there were any. */
  flushBuffered(execution: Execution): boolean {
    const events = execution.buffered.splice(0);
    this.writeEvents(execution, events);
    return events.length > 0;
  }

  private writeEvents(execution: Execution, events: BufferedEvent[]): void {
    let previous: HistoryEvent | undefined;
    for (const { eventType, attributes, startedEventIdFromPrevious } of events) {
      const linked = startedEventIdFromPrevious
        ? { ...attributes, startedEventId: previous?.eventId ?? 0 }
        : attributes;
      previous = this.appendEvent(execution, eventType, linked);
    }
  }

  /** True when nothing is in a worker's hands or queued for one, so time may jump. */
  isQuiescent(): boolean {
    if (this.queries.size || this.watchers.announcing) return false;
    for (const execution of this.mayBeBusy) {
      if (hasWorkInFlight(execution)) return false;
      this.mayBeBusy.delete(execution);
    }
    return true;
  }

  /** Time may be skipped when unlocked (or a client waits for a result) and nothing is in flight. */
  canSkipTime(): boolean {
    if (this.timeSkippingLocks > 0 && this.resultWaiters <= 0) return false;
    return this.isQuiescent();
  }
}

export const historyKey = (runId: string) => `history:${runId}`;
export const updateKey = (runId: string, updateId: string) => `update:${runId}:${updateId}`;

export function isRunning(execution: Execution): boolean {
  return execution.status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
}

/** A workflow task scheduled or running, or an activity queued or running (one in retry backoff waits for time). */
function hasWorkInFlight(execution: Execution): boolean {
  if (!isRunning(execution)) return false;
  if (execution.workflowTask) return true;
  for (const activity of execution.activities.values()) if (activity.state !== 'backoff') return true;
  return false;
}
