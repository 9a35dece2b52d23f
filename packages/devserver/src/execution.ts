/**
 * The state of one workflow run: its history and the mutable state the history implies (the pending
 * workflow task, activities, timers, updates). The store keeps these records; the engine changes them.
 */
import type { TimerId } from './clock.js';
import type { EventHistory } from './event-history.js';
import type { PackedSearchAttributes, PackedStartRequest } from './packed-message.js';
import type { NormalizedRetryPolicy } from './engine/retry.js';
import type { Failure, Header, HistoryEvent, Memo, Payloads } from './proto.js';
import type proto from '@temporalio/proto';

export type StartRequest = proto.temporal.api.workflowservice.v1.IStartWorkflowExecutionRequest;
export type UpdateRequest = proto.temporal.api.update.v1.IRequest;
export type UpdateOutcome = proto.temporal.api.update.v1.IOutcome;

export interface WorkflowTaskState {
  scheduledEventId: number;
  startedEventId: number;
  attempt: number;
  state: 'scheduled' | 'started';
  scheduledTime: number;
  /** When a worker took it (its start-to-close deadline runs from here). */
  startedTime?: number;
  timeoutTimer?: TimerId;
  /**
   * A retry (attempt > 1) is transient, as on the real server: its Scheduled/Started events go to the
   * worker but are written to history only when the task completes (or, for Scheduled, when anything
   * else is written first), so a workflow whose tasks keep failing does not grow its history.
   */
  transientEvents?: HistoryEvent[];
  /**
   * Scheduled only to deliver updates: the real server's speculative task. Its events are transient too, and a
   * completion with no commands that only rejects updates leaves no trace in history (completeWorkflowTask). A
   * durable store does not keep the mark (the real server does not store such a task at all): after a restart
   * the task is an ordinary one.
   */
  speculative?: boolean;
}

export interface StickyQueue {
  name: string;
  /** How long a task may wait there for the worker before it goes back to the normal queue. */
  scheduleToStartMs: number;
}

export interface ActivityTimeouts {
  scheduleToCloseMs: number; // 0 = unlimited
  scheduleToStartMs: number;
  startToCloseMs: number;
  heartbeatMs: number; // 0 = no heartbeat timeout
}

export interface ActivityState {
  scheduledEventId: number;
  activityId: string;
  activityType: string;
  taskQueue: string;
  input?: Payloads | null;
  header?: Header | null;
  timeouts: ActivityTimeouts;
  retryPolicy: NormalizedRetryPolicy;
  /** `backoff`: waiting for the retry delay before the next attempt is queued. */
  state: 'scheduled' | 'started' | 'backoff';
  attempt: number;
  firstScheduledTime: number;
  attemptScheduledTime: number;
  startedTime?: number;
  startedIdentity?: string;
  lastAttemptCompleteTime?: number;
  nextAttemptTime?: number;
  lastFailure?: Failure | null;
  heartbeatDetails?: Payloads | null;
  lastHeartbeatTime?: number;
  cancelRequestedEventId?: number;
  /** Deadlines on the clock, cancelled when the attempt or the activity ends. */
  timers: {
    scheduleToClose?: TimerId;
    scheduleToStart?: TimerId;
    startToClose?: TimerId;
    heartbeat?: TimerId;
    backoff?: TimerId;
  };
}

export interface TimerState {
  timerId: string;
  startedEventId: number;
  /** Server time it fires: its TimerStarted event's time plus startToFireTimeout. */
  fireAt: number;
  handle: TimerId;
}

/**
 * An event caused from outside the workflow (signal, cancel request, activity result, fired timer) while
 * one of its workflow tasks is running: kept as data, written once the task completes (and saved with the
 * run in a durable store, so an acknowledged signal survives a restart).
 */
export interface BufferedEvent {
  eventType: number;
  attributes: Record<string, unknown>;
  /** Sets attributes.startedEventId to the id of the event written just before (an activity's Started + close). */
  startedEventIdFromPrevious?: boolean;
}

export type UpdateStageName = 'admitted' | 'sent' | 'accepted' | 'completed';

export interface UpdateState {
  updateId: string;
  request: UpdateRequest;
  stage: UpdateStageName;
  acceptedEventId?: number;
  outcome?: UpdateOutcome;
}

/**
 * A child run's link to the run that started it (../engine/children.ts): written in its WorkflowExecutionStarted
 * event, and carried to the runs that continue it (continue-as-new, retries), which stay the parent's child.
 */
export interface ParentLink {
  namespace: string;
  namespaceId: string;
  workflowId: string;
  runId: string;
  /** The parent's StartChildWorkflowExecutionInitiated event. */
  initiatedEventId: number;
  /** The top of the tree: the parent's root, or the parent itself. */
  root: { workflowId: string; runId: string };
}

/** A child this run initiated and that has not closed (or failed to start), by its Initiated event id. */
export interface ChildState {
  initiatedEventId: number;
  namespace: string;
  workflowId: string;
  workflowType: string;
  /** PARENT_CLOSE_POLICY_*: what happens to the child when this run closes. */
  parentClosePolicy: number;
  /** Once started: the child's first run, and this run's ChildWorkflowExecutionStarted event. */
  runId?: string;
  startedEventId?: number;
}

export interface Execution {
  namespace: string;
  workflowId: string;
  runId: string;
  firstRunId: string;
  workflowType: string;
  taskQueue: string;
  status: number; // WorkflowExecutionStatus
  startTime: number;
  executionTime: number;
  closeTime?: number;
  /** Request ids that started or attached to this run (start dedupe). */
  requestIds: Set<string>;
  /** Request ids of the signals delivered to this run, so a retried signal is not delivered twice (../engine/request-ids.ts). */
  signalRequestIds?: Set<string>;
  /** Kept packed: read on a retry, a cron run, a continue-as-new and a repeated start only. */
  startRequest: PackedStartRequest;
  workflowTaskTimeoutMs: number;
  runTimeoutMs: number;
  executionTimeoutMs: number;
  /** When the whole chain of runs (continue-as-new) must end; undefined = no limit. */
  executionDeadline?: number;
  runTimeoutTimer?: TimerId;
  /** Workflow retry: the first workflow task waits for the retry backoff. */
  firstTaskTimer?: TimerId;
  /** 1 for a new workflow; counts retries under the workflow's retry policy. */
  attempt: number;
  memo?: Memo | null;
  searchAttributes: PackedSearchAttributes;
  history: EventHistory;
  /** Events caused from outside while a workflow task is started; written once it completes. */
  buffered: BufferedEvent[];
  workflowTask?: WorkflowTaskState;
  /**
   * The sticky queue named by the worker that completed the last workflow task (it keeps the run cached): the
   * next task is offered there with only the events that worker has not seen (../engine/sticky.ts). Not kept by
   * a durable store: after a restart the next task goes to the normal queue with the full history.
   */
  sticky?: StickyQueue;
  nextWorkflowTaskAttempt: number;
  lastCompletedStartedEventId: number;
  activities: Map<number, ActivityState>;
  timers: Map<string, TimerState>;
  updates: Map<string, UpdateState>;
  cancelRequested: boolean;
  /** Set when this run is a child workflow (or continues one). */
  parent?: ParentLink;
  children: Map<number, ChildState>;
}
