/**
 * Activities: scheduling with the real server's timeout defaults, dispatch to pollers, the four timeouts
 * (schedule-to-start, start-to-close, heartbeat, schedule-to-close), heartbeats, server-side retries with
 * the retry policy (backoff, maximum attempts, non-retryable types, an ApplicationFailure's nextRetryDelay)
 * and cancellation. ActivityTaskStarted is written only when the activity closes, with its last attempt,
 * as the real server does for retried activities.
 */
import { randomUUID } from 'node:crypto';
import { notFound } from '../errors.js';
import type { ActivityState, Execution } from '../execution.js';
import { durationToMs, EventType, msToDuration, msToTimestamp, RetryState, TimeoutType } from '../proto.js';
import type { Failure, Payloads } from '../proto.js';
import type proto from '@temporalio/proto';
import { isRunning } from './context.js';
import type { EngineContext } from './context.js';
import { decodeToken, encodeToken } from './tokens.js';
import { normalizeRetryPolicy, retryDecision, retryPolicyToProto } from './retry.js';
import { blobOverLimit, failureWithinLimit, oversizeActivityFailures, payloadsSize } from './limits.js';

type ScheduleAttributes = proto.temporal.api.command.v1.IScheduleActivityTaskCommandAttributes;
/** A PollActivityTaskQueueResponse, as a plain object for protobufjs `fromObject`. */
export type PollActivityTaskResponse = object;

export function scheduleActivity(
  ctx: EngineContext,
  execution: Execution,
  attrs: ScheduleAttributes,
  workflowTaskCompletedEventId: number,
  userMetadata?: object | null,
): void {
  const runTimeoutMs = execution.runTimeoutMs;
  // the real server's defaults: schedule-to-close falls back to the run timeout (0 = none), the others to it
  const scheduleToCloseMs = durationToMs(attrs.scheduleToCloseTimeout) || runTimeoutMs;
  const capToClose = (ms: number) => (scheduleToCloseMs ? Math.min(ms || scheduleToCloseMs, scheduleToCloseMs) : ms);
  const startToCloseMs = capToClose(durationToMs(attrs.startToCloseTimeout));
  const scheduleToStartMs = capToClose(durationToMs(attrs.scheduleToStartTimeout));
  const heartbeatMs = Math.min(durationToMs(attrs.heartbeatTimeout), startToCloseMs || Infinity);
  const retryPolicy = normalizeRetryPolicy(attrs.retryPolicy);
  const taskQueue = attrs.taskQueue!.name!; // required by the command checks
  const event = ctx.appendEvent(
    execution,
    EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
    {
      activityId: attrs.activityId,
      activityType: attrs.activityType,
      taskQueue: { name: taskQueue, kind: attrs.taskQueue?.kind ?? 1 },
      header: attrs.header,
      input: attrs.input,
      scheduleToCloseTimeout: msToDuration(scheduleToCloseMs),
      scheduleToStartTimeout: msToDuration(scheduleToStartMs),
      startToCloseTimeout: msToDuration(startToCloseMs),
      heartbeatTimeout: msToDuration(heartbeatMs),
      retryPolicy: retryPolicyToProto(retryPolicy),
      priority: attrs.priority,
      workflowTaskCompletedEventId,
    },
    userMetadata ? { userMetadata } : {},
  );
  const now = ctx.clock.now();
  const activity: ActivityState = {
    scheduledEventId: Number(event.eventId),
    activityId: attrs.activityId!,
    activityType: attrs.activityType!.name!,
    taskQueue,
    input: attrs.input,
    header: attrs.header,
    timeouts: { scheduleToCloseMs, scheduleToStartMs, startToCloseMs, heartbeatMs },
    retryPolicy,
    state: 'scheduled',
    attempt: 1,
    firstScheduledTime: now,
    attemptScheduledTime: now,
    timers: {},
  };
  execution.activities.set(activity.scheduledEventId, activity);
  armScheduleToClose(ctx, execution, activity);
  enqueue(ctx, execution, activity);
}

/**
 * An activity of a run loaded from a durable store, where it was when the server stopped: scheduled (offered
 * again), running on a worker (its start-to-close and heartbeat deadlines still hold: it times out and is
 * retried by its retry policy unless the worker completes it), or waiting out a retry backoff. Every
 * deadline is absolute, so one that passed while the server was down fires at once.
 */
export function resumeActivity(ctx: EngineContext, execution: Execution, activity: ActivityState): void {
  armScheduleToClose(ctx, execution, activity);
  if (activity.state === 'scheduled') enqueue(ctx, execution, activity);
  else if (activity.state === 'started') armStartedTimeouts(ctx, execution, activity);
  else armBackoff(ctx, execution, activity);
}

function armScheduleToClose(ctx: EngineContext, execution: Execution, activity: ActivityState): void {
  if (!activity.timeouts.scheduleToCloseMs) return;
  const deadline = activity.firstScheduledTime + activity.timeouts.scheduleToCloseMs;
  activity.timers.scheduleToClose = ctx.clock.at(deadline, () => {
    // the real server fires deadlines due together in timeout-type order: schedule-to-start first
    const scheduleToStartDue =
      activity.state === 'scheduled' &&
      activity.timeouts.scheduleToStartMs > 0 &&
      scheduleToStartDeadline(activity) <= deadline;
    const type = scheduleToStartDue
      ? TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START
      : TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE;
    attemptFailed(ctx, execution, activity, timeoutFailure(type), 'timeout');
  });
}

const scheduleToStartDeadline = (activity: ActivityState) =>
  activity.attemptScheduledTime + activity.timeouts.scheduleToStartMs;

function enqueue(ctx: EngineContext, execution: Execution, activity: ActivityState): void {
  const { attempt } = activity;
  if (activity.timeouts.scheduleToStartMs)
    activity.timers.scheduleToStart = ctx.clock.at(scheduleToStartDeadline(activity), () =>
      attemptFailed(ctx, execution, activity, timeoutFailure(TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START), 'timeout'),
    );
  ctx.matching.offer('activity', execution.namespace, activity.taskQueue, (identity) =>
    start(ctx, execution, activity, attempt, identity),
  );
}

function armStartedTimeouts(ctx: EngineContext, execution: Execution, activity: ActivityState): void {
  activity.timers.startToClose = ctx.clock.at(
    (activity.startedTime ?? ctx.clock.now()) + activity.timeouts.startToCloseMs,
    () => attemptFailed(ctx, execution, activity, timeoutFailure(TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE), 'timeout'),
  );
  armHeartbeatTimeout(ctx, execution, activity);
}

function armBackoff(ctx: EngineContext, execution: Execution, activity: ActivityState): void {
  activity.timers.backoff = ctx.clock.at(activity.nextAttemptTime ?? ctx.clock.now(), () => {
    delete activity.timers.backoff;
    ctx.touch(execution);
    activity.state = 'scheduled';
    activity.nextAttemptTime = undefined;
    activity.attemptScheduledTime = ctx.clock.now();
    enqueue(ctx, execution, activity);
  });
}

function start(
  ctx: EngineContext,
  execution: Execution,
  activity: ActivityState,
  attempt: number,
  identity: string,
): PollActivityTaskResponse | null {
  if (!isRunning(execution) || execution.activities.get(activity.scheduledEventId) !== activity) return null;
  if (activity.state !== 'scheduled' || activity.attempt !== attempt) return null;
  ctx.clock.cancel(activity.timers.scheduleToStart);
  ctx.touch(execution);
  activity.state = 'started';
  activity.startedTime = ctx.clock.now();
  activity.startedIdentity = identity;
  armStartedTimeouts(ctx, execution, activity);
  return {
    taskToken: encodeToken({
      kind: 'activity',
      runId: execution.runId,
      scheduledEventId: activity.scheduledEventId,
      attempt,
    }),
    workflowNamespace: execution.namespace,
    workflowType: { name: execution.workflowType },
    workflowExecution: { workflowId: execution.workflowId, runId: execution.runId },
    activityType: { name: activity.activityType },
    activityId: activity.activityId,
    header: activity.header,
    input: activity.input,
    heartbeatDetails: activity.heartbeatDetails,
    scheduledTime: msToTimestamp(activity.firstScheduledTime),
    currentAttemptScheduledTime: msToTimestamp(activity.attemptScheduledTime),
    startedTime: msToTimestamp(activity.startedTime),
    attempt,
    scheduleToCloseTimeout: msToDuration(activity.timeouts.scheduleToCloseMs),
    startToCloseTimeout: msToDuration(activity.timeouts.startToCloseMs),
    heartbeatTimeout: msToDuration(activity.timeouts.heartbeatMs),
    retryPolicy: retryPolicyToProto(activity.retryPolicy),
  };
}

function armHeartbeatTimeout(ctx: EngineContext, execution: Execution, activity: ActivityState): void {
  if (!activity.timeouts.heartbeatMs) return;
  ctx.clock.cancel(activity.timers.heartbeat);
  // from the attempt's start or its last heartbeat, whichever is later
  const from = Math.max(activity.lastHeartbeatTime ?? 0, activity.startedTime ?? ctx.clock.now());
  activity.timers.heartbeat = ctx.clock.at(from + activity.timeouts.heartbeatMs, () =>
    attemptFailed(ctx, execution, activity, timeoutFailure(TimeoutType.TIMEOUT_TYPE_HEARTBEAT), 'timeout'),
  );
}

/** The failure of one attempt's timeout (what a retry keeps as the last failure). */
function timeoutFailure(timeoutType: number): Failure {
  const name = {
    [TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START]: 'ScheduleToStart',
    [TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE]: 'StartToClose',
    [TimeoutType.TIMEOUT_TYPE_HEARTBEAT]: 'Heartbeat',
    [TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE]: 'ScheduleToClose',
  }[timeoutType];
  return { message: `activity ${name} timeout`, source: 'Server', timeoutFailureInfo: { timeoutType } };
}

/**
 * The failure an ActivityTaskTimedOut event carries, as the real server writes it: a timeout that leaves no
 * time for another attempt (retry state TIMEOUT) is reported as schedule-to-close, unless it is a
 * schedule-to-start timeout; the cause is the previous attempt's failure, and the last heartbeat is attached.
 */
function finalTimeoutFailure(activity: ActivityState, failure: Failure, retryState: number): Failure {
  const outOfTime =
    retryState === RetryState.RETRY_STATE_TIMEOUT &&
    failure.timeoutFailureInfo?.timeoutType !== TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START;
  const base = outOfTime
    ? {
        ...timeoutFailure(TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE),
        message: 'Not enough time to schedule next retry before activity ScheduleToClose timeout, giving up retrying',
      }
    : failure;
  return {
    ...base,
    timeoutFailureInfo: { ...base.timeoutFailureInfo, lastHeartbeatDetails: activity.heartbeatDetails },
    cause: activity.lastFailure,
  };
}

/** Cancels the clock deadlines of an activity (its attempt ended, or the run closed). */
export function cancelActivityTimers(
  ctx: EngineContext,
  activity: ActivityState,
  keep: (keyof ActivityState['timers'])[] = [],
): void {
  for (const key of Object.keys(activity.timers) as (keyof ActivityState['timers'])[]) {
    if (keep.includes(key)) continue;
    ctx.clock.cancel(activity.timers[key]);
    delete activity.timers[key];
  }
}

/** The retry decision for a failed attempt: schedule-to-start and schedule-to-close timeouts are final (retry state TIMEOUT). */
function activityRetryDecision(
  ctx: EngineContext,
  activity: ActivityState,
  failure: Failure,
  kind: 'failure' | 'timeout',
): { retryState: number; delayMs: number } {
  const timeoutType = failure.timeoutFailureInfo?.timeoutType;
  if (
    kind === 'timeout' &&
    timeoutType !== TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE &&
    timeoutType !== TimeoutType.TIMEOUT_TYPE_HEARTBEAT
  )
    return { retryState: RetryState.RETRY_STATE_TIMEOUT, delayMs: 0 };
  const deadline = activity.timeouts.scheduleToCloseMs
    ? activity.firstScheduledTime + activity.timeouts.scheduleToCloseMs
    : Infinity;
  return retryDecision(activity.retryPolicy, activity.attempt, failure, ctx.clock.now(), deadline);
}

function attemptFailed(
  ctx: EngineContext,
  execution: Execution,
  activity: ActivityState,
  failure: Failure,
  kind: 'failure' | 'timeout',
): void {
  if (execution.activities.get(activity.scheduledEventId) !== activity) return;
  const { retryState, delayMs } = activityRetryDecision(ctx, activity, failure, kind);
  ctx.touch(execution);
  if (retryState === RetryState.RETRY_STATE_IN_PROGRESS) {
    cancelActivityTimers(ctx, activity, ['scheduleToClose']);
    ctx.log(
      `activity ${activity.activityType} (${activity.activityId}) of ${execution.workflowId}: attempt ${activity.attempt} failed (${failure.message}); retry in ${delayMs} ms`,
    );
    activity.lastFailure = failure;
    activity.lastAttemptCompleteTime = ctx.clock.now();
    activity.nextAttemptTime = ctx.clock.now() + delayMs;
    activity.attempt++;
    activity.state = 'backoff';
    armBackoff(ctx, execution, activity);
    return;
  }
  if (kind === 'timeout')
    close(ctx, execution, activity, EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT, {
      failure: finalTimeoutFailure(activity, failure, retryState),
      retryState,
    });
  else
    close(ctx, execution, activity, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED, {
      failure,
      retryState,
      identity: activity.startedIdentity,
    });
}

/** Removes the activity and records how it ended (with its Started event carrying the last attempt). */
function close(
  ctx: EngineContext,
  execution: Execution,
  activity: ActivityState,
  eventType: number,
  attributes: object,
): void {
  ctx.touch(execution);
  cancelActivityTimers(ctx, activity);
  execution.activities.delete(activity.scheduledEventId);
  const closeEvent = {
    eventType,
    attributes: { scheduledEventId: activity.scheduledEventId, startedEventId: 0, ...attributes },
  };
  if (activity.startedTime === undefined) return ctx.external(execution, [closeEvent]);
  const started = {
    eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
    attributes: {
      scheduledEventId: activity.scheduledEventId,
      identity: activity.startedIdentity,
      requestId: randomUUID(),
      attempt: activity.attempt,
      lastFailure: activity.lastFailure,
    },
  };
  ctx.external(execution, [started, { ...closeEvent, startedEventIdFromPrevious: true }]);
}

function findStarted(
  ctx: EngineContext,
  tokenBytes: Uint8Array | null | undefined,
): { execution: Execution; activity: ActivityState } {
  const token = decodeToken(tokenBytes);
  const execution = token.kind === 'activity' ? ctx.store.getRun(token.runId) : undefined;
  const activity = token.kind === 'activity' ? execution?.activities.get(token.scheduledEventId) : undefined;
  if (
    token.kind !== 'activity' ||
    !execution ||
    !activity ||
    activity.attempt !== token.attempt ||
    activity.state !== 'started'
  )
    throw notFound('Activity task not found (it timed out, was retried, or its workflow has closed).');
  ctx.touch(execution);
  return { execution, activity };
}

const activityName = (activity: ActivityState) => `activity ${activity.activityType} (${activity.activityId})`;

/** Whether a payload from an activity worker is over the blob limit (what the real server's frontend checks). */
function overBlobLimit(
  ctx: EngineContext,
  activity: ActivityState,
  payloads: Payloads | null | undefined,
  what: string,
): boolean {
  return blobOverLimit(ctx.options.limits, payloadsSize(payloads), `${activityName(activity)}: ${what}`, ctx.log);
}

export function completeActivity(
  ctx: EngineContext,
  tokenBytes: Uint8Array | null | undefined,
  result: Payloads | null | undefined,
  identity: string,
): void {
  const { execution, activity } = findStarted(ctx, tokenBytes);
  if (overBlobLimit(ctx, activity, result, 'result'))
    return attemptFailed(ctx, execution, activity, oversizeActivityFailures.completeResult(), 'failure');
  close(ctx, execution, activity, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, { result, identity });
}

export function failActivity(
  ctx: EngineContext,
  tokenBytes: Uint8Array | null | undefined,
  failure: Failure | null | undefined,
  lastHeartbeatDetails: Payloads | null | undefined,
): void {
  const { execution, activity } = findStarted(ctx, tokenBytes);
  // heartbeat details over the limit are dropped, as the real server drops them
  if (
    lastHeartbeatDetails?.payloads?.length &&
    !overBlobLimit(ctx, activity, lastHeartbeatDetails, 'last heartbeat details')
  )
    activity.heartbeatDetails = lastHeartbeatDetails;
  const reported = failure ?? { message: 'activity failed without a failure' };
  attemptFailed(
    ctx,
    execution,
    activity,
    failureWithinLimit(ctx.options.limits, reported, `${activityName(activity)}: failure`, ctx.log),
    'failure',
  );
}

export function activityCanceled(
  ctx: EngineContext,
  tokenBytes: Uint8Array | null | undefined,
  details: Payloads | null | undefined,
  identity: string,
): void {
  const { execution, activity } = findStarted(ctx, tokenBytes);
  if (overBlobLimit(ctx, activity, details, 'cancel details'))
    return attemptFailed(ctx, execution, activity, oversizeActivityFailures.cancelDetails(), 'failure');
  close(ctx, execution, activity, EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED, {
    details,
    latestCancelRequestedEventId: activity.cancelRequestedEventId ?? 0,
    identity,
  });
}

/** Records a heartbeat; answers whether the workflow asked for the activity to be cancelled (or it must stop). */
export function heartbeat(
  ctx: EngineContext,
  tokenBytes: Uint8Array | null | undefined,
  details: Payloads | null | undefined,
): { cancelRequested: boolean } {
  const { execution, activity } = findStarted(ctx, tokenBytes);
  if (overBlobLimit(ctx, activity, details, 'heartbeat details')) {
    // the attempt fails; the worker is told to stop it
    attemptFailed(ctx, execution, activity, oversizeActivityFailures.heartbeatDetails(), 'failure');
    return { cancelRequested: true };
  }
  if (details) activity.heartbeatDetails = details;
  activity.lastHeartbeatTime = ctx.clock.now();
  armHeartbeatTimeout(ctx, execution, activity);
  return { cancelRequested: activity.cancelRequestedEventId !== undefined };
}

/**
 * The workflow asks to cancel an activity. One not running on a worker ends at once (returns true: the
 * workflow has a new event to see); a running one learns it from its next heartbeat.
 */
export function requestActivityCancel(
  ctx: EngineContext,
  execution: Execution,
  scheduledEventId: number,
  workflowTaskCompletedEventId: number,
): boolean {
  const requested = ctx.appendEvent(execution, EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED, {
    scheduledEventId,
    workflowTaskCompletedEventId,
  });
  const activity = execution.activities.get(scheduledEventId);
  if (!activity) return false;
  activity.cancelRequestedEventId = Number(requested.eventId);
  if (activity.state === 'started') return false;
  cancelActivityTimers(ctx, activity);
  execution.activities.delete(scheduledEventId);
  ctx.appendEvent(execution, EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED, {
    latestCancelRequestedEventId: activity.cancelRequestedEventId,
    scheduledEventId,
    startedEventId: 0,
  });
  return true;
}
