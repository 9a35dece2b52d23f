/**
 * A run as the durable store keeps it: its history (append-only, one row per event) plus a row holding what
 * the history does not say, and the run's mutable state is rebuilt from the two on load, the way the real
 * server's mutable state follows from history plus its own records:
 *
 * - from the history: pending activities (scheduled, not closed) with everything their Scheduled event says
 *   (type, input, header, timeouts, retry policy), pending timers (started, not fired or cancelled, firing at
 *   the TimerStarted time plus the timeout), updates accepted and completed (with their requests and outcomes),
 *   pending children (initiated, not closed) and the parent a child's WorkflowExecutionStarted names;
 * - from the record (`RunRecord`, JSON): where each pending activity is (attempt, scheduled/started/backoff,
 *   times, last failure, heartbeat details), the workflow task (scheduled or started, attempt, and a retry's
 *   transient events, which the real server also keeps out of history), events buffered while a workflow task
 *   runs, updates admitted but not yet accepted, start and signal request ids, cancel requested, the run's timeouts.
 *
 * The record holds no payload that history holds already (an activity's input is read from its Scheduled
 * event), so a change rewrites a small row; history rows are only ever inserted. Stickiness (the worker that
 * has the run cached) is not kept: after a restart a run's next workflow task goes to the normal queue with
 * the full history, which any worker can take.
 */
import type { EventHistory } from '../event-history.js';
import { packSearchAttributes, searchAttributesFromEncoded, startRequestFromEncoded } from '../packed-message.js';
import type {
  ActivityState,
  BufferedEvent,
  Execution,
  TimerState,
  UpdateRequest,
  UpdateState,
  WorkflowTaskState,
} from '../execution.js';
import { normalizeRetryPolicy } from '../engine/retry.js';
import { childrenFromHistory, parentFromHistory } from '../engine/children.js';
import { durationToMs, eventAttributesKey, EventType, ExecutionStatus, timestampToMs } from '../proto.js';
import type { Failure, HistoryEvent, Memo, Payloads } from '../proto.js';
import { decodeBase64, decodeEvent, decodeMessage, encodeBase64, eventAttributes, TYPES } from './codec.js';

export interface WorkflowTaskRecord {
  scheduledEventId: number;
  startedEventId: number;
  attempt: number;
  state: 'scheduled' | 'started';
  scheduledTime: number;
  startedTime?: number;
  /** A retry's Scheduled (and Started) events, not yet in history (base64 HistoryEvent). */
  transientEvents?: string[];
}

export interface ActivityRecord {
  attempt: number;
  state: ActivityState['state'];
  firstScheduledTime: number;
  attemptScheduledTime: number;
  startedTime?: number;
  startedIdentity?: string;
  lastAttemptCompleteTime?: number;
  nextAttemptTime?: number;
  lastFailure?: string;
  heartbeatDetails?: string;
  lastHeartbeatTime?: number;
  cancelRequestedEventId?: number;
}

export interface RunRecord {
  v: 1;
  requestIds: string[];
  /** Request ids of the signals delivered (absent in records written before they were kept). */
  signalRequestIds?: string[];
  workflowTaskTimeoutMs: number;
  runTimeoutMs: number;
  executionTimeoutMs: number;
  executionDeadline?: number;
  attempt: number;
  nextWorkflowTaskAttempt: number;
  lastCompletedStartedEventId: number;
  cancelRequested: boolean;
  workflowTask?: WorkflowTaskRecord;
  /** By scheduled event id. */
  activities: Record<string, ActivityRecord>;
  /** Admitted, not yet accepted or rejected; `sent`: handed to the workflow task that is running. */
  admittedUpdates: { updateId: string; request: string; sent?: true }[];
  /** Events waiting for the running workflow task to complete (base64 HistoryEvent without ids). */
  buffered: { event: string; startedEventIdFromPrevious?: true }[];
}

/** One row of the executions table, as read back. */
export interface ExecutionRow {
  run_id: string;
  namespace: string;
  workflow_id: string;
  first_run_id: string;
  workflow_type: string;
  task_queue: string;
  status: number;
  start_time: Date;
  execution_time: Date;
  close_time: Date | null;
  memo: Buffer | null;
  search_attributes: Buffer | null;
  start_request: Buffer;
  state: RunRecord;
}

// Failures, heartbeat details and events are replaced, never changed in place: encode each object once.
const encoded = new WeakMap<object, string>();
function cachedBase64(typeName: string, value: object): string {
  let text = encoded.get(value);
  if (text === undefined) encoded.set(value, (text = encodeBase64(typeName, value)));
  return text;
}

const bufferedAsEvent = (b: BufferedEvent): HistoryEvent =>
  ({
    eventId: 0,
    eventTime: {},
    eventType: b.eventType,
    version: 0,
    taskId: 0,
    [eventAttributesKey(b.eventType)]: b.attributes,
  }) as HistoryEvent;

export function toRecord(execution: Execution): RunRecord {
  const task = execution.workflowTask;
  const activities: Record<string, ActivityRecord> = {};
  for (const a of execution.activities.values()) {
    activities[a.scheduledEventId] = {
      attempt: a.attempt,
      state: a.state,
      firstScheduledTime: a.firstScheduledTime,
      attemptScheduledTime: a.attemptScheduledTime,
      startedTime: a.startedTime,
      startedIdentity: a.startedIdentity,
      lastAttemptCompleteTime: a.lastAttemptCompleteTime,
      nextAttemptTime: a.nextAttemptTime,
      lastFailure: a.lastFailure ? cachedBase64(TYPES.failure, a.lastFailure) : undefined,
      heartbeatDetails: a.heartbeatDetails ? cachedBase64(TYPES.payloads, a.heartbeatDetails) : undefined,
      lastHeartbeatTime: a.lastHeartbeatTime,
      cancelRequestedEventId: a.cancelRequestedEventId,
    };
  }
  const admittedUpdates = [];
  for (const u of execution.updates.values())
    if (u.stage === 'admitted' || u.stage === 'sent')
      admittedUpdates.push({
        updateId: u.updateId,
        request: cachedBase64(TYPES.updateRequest, u.request),
        ...(u.stage === 'sent' ? { sent: true as const } : {}),
      });
  return {
    v: 1,
    requestIds: [...execution.requestIds],
    signalRequestIds: execution.signalRequestIds && [...execution.signalRequestIds],
    workflowTaskTimeoutMs: execution.workflowTaskTimeoutMs,
    runTimeoutMs: execution.runTimeoutMs,
    executionTimeoutMs: execution.executionTimeoutMs,
    executionDeadline: execution.executionDeadline,
    attempt: execution.attempt,
    nextWorkflowTaskAttempt: execution.nextWorkflowTaskAttempt,
    lastCompletedStartedEventId: execution.lastCompletedStartedEventId,
    cancelRequested: execution.cancelRequested,
    workflowTask: task && {
      scheduledEventId: task.scheduledEventId,
      startedEventId: task.startedEventId,
      attempt: task.attempt,
      state: task.state,
      scheduledTime: task.scheduledTime,
      startedTime: task.startedTime,
      transientEvents: task.transientEvents?.map((e) => cachedBase64(TYPES.event, e)),
    },
    activities,
    admittedUpdates,
    buffered: execution.buffered.map((b) => ({
      event: cachedBase64(TYPES.event, bufferedAsEvent(b)),
      ...(b.startedEventIdFromPrevious ? { startedEventIdFromPrevious: true as const } : {}),
    })),
  };
}

const CLOSES_ACTIVITY = new Set<number>([
  EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
  EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED,
]);

function activityFromHistory(scheduled: HistoryEvent, record: ActivityRecord | undefined): ActivityState {
  const attrs = eventAttributes(scheduled);
  const scheduledTime = timestampToMs(scheduled.eventTime);
  return {
    scheduledEventId: scheduled.eventId,
    activityId: attrs.activityId ?? '',
    activityType: attrs.activityType?.name ?? '',
    taskQueue: attrs.taskQueue?.name ?? '',
    input: attrs.input,
    header: attrs.header,
    timeouts: {
      scheduleToCloseMs: durationToMs(attrs.scheduleToCloseTimeout),
      scheduleToStartMs: durationToMs(attrs.scheduleToStartTimeout),
      startToCloseMs: durationToMs(attrs.startToCloseTimeout),
      heartbeatMs: durationToMs(attrs.heartbeatTimeout),
    },
    // written normalized, so normalizing again changes nothing
    retryPolicy: normalizeRetryPolicy(attrs.retryPolicy),
    state: record?.state ?? 'scheduled',
    attempt: record?.attempt ?? 1,
    firstScheduledTime: record?.firstScheduledTime ?? scheduledTime,
    attemptScheduledTime: record?.attemptScheduledTime ?? scheduledTime,
    startedTime: record?.startedTime,
    startedIdentity: record?.startedIdentity,
    lastAttemptCompleteTime: record?.lastAttemptCompleteTime,
    nextAttemptTime: record?.nextAttemptTime,
    lastFailure: record?.lastFailure ? decodeBase64<Failure>(TYPES.failure, record.lastFailure) : undefined,
    heartbeatDetails: record?.heartbeatDetails
      ? decodeBase64<Payloads>(TYPES.payloads, record.heartbeatDetails)
      : undefined,
    lastHeartbeatTime: record?.lastHeartbeatTime,
    cancelRequestedEventId: record?.cancelRequestedEventId,
    timers: {},
  };
}

/** Updates as history tells them (accepted, completed), plus those admitted and not yet accepted. */
function updatesFromHistory(
  history: HistoryEvent[],
  admitted: RunRecord['admittedUpdates'],
  running: boolean,
): Map<string, UpdateState> {
  const updates = new Map<string, UpdateState>();
  for (const event of history) {
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED) {
      const attrs = eventAttributes(event);
      const updateId = attrs.protocolInstanceId ?? '';
      updates.set(updateId, {
        updateId,
        request: attrs.acceptedRequest ?? {},
        stage: 'accepted',
        acceptedEventId: event.eventId,
      });
    } else if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED) {
      const attrs = eventAttributes(event);
      const updateId = attrs.meta?.updateId ?? '';
      const update: UpdateState = updates.get(updateId) ?? { updateId, request: {}, stage: 'accepted' };
      update.stage = 'completed';
      update.outcome = attrs.outcome;
      updates.set(updateId, update);
    }
  }
  if (running)
    for (const { updateId, request, sent } of admitted)
      if (!updates.has(updateId))
        updates.set(updateId, {
          updateId,
          request: decodeBase64<UpdateRequest>(TYPES.updateRequest, request),
          stage: sent ? 'sent' : 'admitted',
        });
  return updates;
}

/** Rebuilds a run from its row and its history. */
export function loadExecution(row: ExecutionRow, history: EventHistory): Execution {
  const record = row.state;
  const events = [...history];
  const running = row.status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  const buffered: BufferedEvent[] = running
    ? record.buffered.map(({ event, startedEventIdFromPrevious }) => {
        const decoded = decodeEvent(Buffer.from(event, 'base64'));
        return {
          eventType: decoded.eventType,
          attributes: eventAttributes(decoded),
          ...(startedEventIdFromPrevious ? { startedEventIdFromPrevious } : {}),
        };
      })
    : [];
  const execution: Execution = {
    namespace: row.namespace,
    workflowId: row.workflow_id,
    runId: row.run_id,
    firstRunId: row.first_run_id,
    workflowType: row.workflow_type,
    taskQueue: row.task_queue,
    status: row.status,
    startTime: row.start_time.getTime(),
    executionTime: row.execution_time.getTime(),
    closeTime: row.close_time?.getTime(),
    requestIds: new Set(record.requestIds),
    signalRequestIds: record.signalRequestIds && new Set(record.signalRequestIds),
    startRequest: startRequestFromEncoded(row.start_request),
    workflowTaskTimeoutMs: record.workflowTaskTimeoutMs,
    runTimeoutMs: record.runTimeoutMs,
    executionTimeoutMs: record.executionTimeoutMs,
    executionDeadline: record.executionDeadline ?? undefined,
    attempt: record.attempt,
    memo: row.memo ? decodeMessage<Memo>(TYPES.memo, row.memo) : undefined,
    searchAttributes: row.search_attributes
      ? searchAttributesFromEncoded(row.search_attributes)
      : packSearchAttributes(undefined),
    history,
    buffered,
    nextWorkflowTaskAttempt: record.nextWorkflowTaskAttempt,
    lastCompletedStartedEventId: record.lastCompletedStartedEventId,
    activities: new Map(),
    timers: new Map(),
    updates: updatesFromHistory(events, record.admittedUpdates, running),
    cancelRequested: record.cancelRequested,
    parent: parentFromHistory(events),
    children: childrenFromHistory([...events, ...buffered.map(bufferedAsEvent)]),
  };
  if (!running) return execution;

  // what is pending: history, then the buffered events that will follow it
  const scheduled = new Map<number, HistoryEvent>();
  const timers = new Map<string, TimerState>();
  for (const event of [...events, ...buffered.map(bufferedAsEvent)]) {
    const attrs = eventAttributes(event);
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) scheduled.set(event.eventId, event);
    else if (CLOSES_ACTIVITY.has(event.eventType)) scheduled.delete(Number(attrs.scheduledEventId ?? 0));
    else if (event.eventType === EventType.EVENT_TYPE_TIMER_STARTED)
      timers.set(attrs.timerId ?? '', {
        timerId: attrs.timerId ?? '',
        startedEventId: event.eventId,
        fireAt: timestampToMs(event.eventTime) + durationToMs(attrs.startToFireTimeout),
        handle: 0,
      });
    else if (
      event.eventType === EventType.EVENT_TYPE_TIMER_FIRED ||
      event.eventType === EventType.EVENT_TYPE_TIMER_CANCELED
    )
      timers.delete(attrs.timerId ?? '');
  }
  for (const [id, event] of scheduled) execution.activities.set(id, activityFromHistory(event, record.activities[id]));
  execution.timers = timers;

  const task = record.workflowTask;
  if (task) {
    const state: WorkflowTaskState = {
      scheduledEventId: task.scheduledEventId,
      startedEventId: task.startedEventId,
      attempt: task.attempt,
      state: task.state,
      scheduledTime: task.scheduledTime,
      startedTime: task.startedTime,
      transientEvents: task.transientEvents?.map((e) => decodeEvent(Buffer.from(e, 'base64'))),
    };
    execution.workflowTask = state;
  }
  return execution;
}
