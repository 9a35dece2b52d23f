/**
 * The life of a run as a whole: starting it (with the workflow-id reuse and conflict policies and
 * request-id dedupe), signals, cancel requests, termination, run/execution timeouts, closing, and
 * continuing as new.
 */
import { alreadyExists, invalidArgument, notFound, requireField, unimplemented } from '../errors.js';
import type { Execution, ParentLink, StartRequest } from '../execution.js';
import {
  durationToMs,
  EventType,
  ExecutionStatus,
  IdConflictPolicy,
  IdReusePolicy,
  msToDuration,
  RetryState,
  ContinueAsNewInitiator,
  TaskQueueKind,
  TimeoutType,
  WorkflowTaskFailedCause,
} from '../proto.js';
import type { Failure, Header, Payloads } from '../proto.js';
import { packSearchAttributes, packStartRequest } from '../packed-message.js';
import { validateSearchAttributes } from '../visibility/search-attributes.js';
import { historyKey, isRunning, updateKey } from './context.js';
import type { EngineContext } from './context.js';
import { cancelActivityTimers } from './activities.js';
import { onRunClosed, parentStartedAttributes } from './children.js';
import { cronFirstRun, nextCronRun, validateCronSchedule } from './cron.js';
import type { CronRun } from './cron.js';
import { checkSearchAttributesCount, checkSignalInput, checkStartSizes } from './limits.js';
import { isDuplicateSignal, rememberSignal, startedBy } from './request-ids.js';
import { normalizeRetryPolicy, retryDecision, retryPolicyError } from './retry.js';

const DEFAULT_WORKFLOW_TASK_TIMEOUT_MS = 10_000;
const MAX_WORKFLOW_TASK_TIMEOUT_MS = 120_000;

type WorkflowRef = { workflowId: string; runId: string };

export interface StartOutcome {
  execution: Execution;
  started: boolean;
}

interface ContinuedFrom {
  previous: Execution;
  runId: string;
  initiator: number;
  lastCompletionResult?: Payloads | null;
  continuedFailure?: Failure | null;
  /** For a retry: the new attempt number and how long its first workflow task waits. */
  attempt?: number;
  backoffMs?: number;
}

/** Checks a start request's own fields; the namespace must exist. */
export function validateStartRequest(ctx: EngineContext, request: StartRequest): void {
  const record = ctx.requireNamespace(request.namespace);
  const namespace = record.name;
  requireField(request.workflowId, 'workflowId');
  requireField(request.workflowType?.name, 'workflowType.name');
  requireField(request.taskQueue?.name, 'taskQueue.name');
  for (const field of ['workflowExecutionTimeout', 'workflowRunTimeout', 'workflowTaskTimeout'] as const) {
    if (durationToMs(request[field]) < 0) throw invalidArgument(`${field} must not be negative`);
  }
  validateCronSchedule(request, ctx.clock.now());
  if (durationToMs(request.workflowStartDelay) > 0)
    throw unimplemented('devserver: workflowStartDelay is not supported');
  const reuse = request.workflowIdReusePolicy ?? 0;
  const conflict = request.workflowIdConflictPolicy ?? 0;
  if (
    reuse === IdReusePolicy.WORKFLOW_ID_REUSE_POLICY_TERMINATE_IF_RUNNING &&
    conflict !== IdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED
  )
    throw invalidArgument(
      'workflowIdReusePolicy TERMINATE_IF_RUNNING cannot be combined with a workflowIdConflictPolicy',
    );
  const retryProblem = retryPolicyError(request.retryPolicy);
  if (retryProblem) throw invalidArgument(retryProblem);
  checkSearchAttributesCount(ctx.options.limits, request.searchAttributes);
  validateSearchAttributes(request.searchAttributes, record.searchAttributes, namespace);
  checkStartSizes(ctx.options.limits, request, ctx.log);
}

/**
 * Starts a workflow, or answers with the run the policies say to use instead. Throws ALREADY_EXISTS
 * when the policies refuse. `parent`: the run starting it as its child (./children.ts).
 */
export function startWorkflow(ctx: EngineContext, request: StartRequest, parent?: ParentLink): StartOutcome {
  validateStartRequest(ctx, request);
  const namespace = request.namespace!;
  const workflowId = request.workflowId!;
  const requestId = request.requestId || ctx.newRunId();
  const current = ctx.store.getCurrentRun(namespace, workflowId);
  if (current && current.requestIds.has(requestId))
    return { execution: current, started: startedBy(current, requestId) };
  if (current && isRunning(current)) {
    const conflict = request.workflowIdConflictPolicy ?? 0;
    const terminateIfRunning =
      request.workflowIdReusePolicy === IdReusePolicy.WORKFLOW_ID_REUSE_POLICY_TERMINATE_IF_RUNNING;
    if (conflict === IdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING) {
      current.requestIds.add(requestId);
      ctx.touch(current);
      return { execution: current, started: false };
    }
    if (conflict === IdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING || terminateIfRunning) {
      terminate(
        ctx,
        current,
        'terminated by a new start of the same workflow id (conflict policy)',
        request.identity ?? '',
      );
    } else {
      throw alreadyExists(`Workflow execution is already running. WorkflowId: ${workflowId}, RunId: ${current.runId}.`);
    }
  } else if (current) {
    checkReusePolicy(current, request.workflowIdReusePolicy ?? 0);
  }
  return { execution: createRun(ctx, { ...request, requestId }, undefined, parent), started: true };
}

function checkReusePolicy(previous: Execution, policy: number): void {
  const failedStatuses: number[] = [
    ExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED,
    ExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED,
    ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED,
    ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT,
  ];
  const ids = `WorkflowId: ${previous.workflowId}, RunId: ${previous.runId}`;
  if (policy === IdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
    throw alreadyExists(`Workflow execution already finished. ${ids}. Workflow id reuse policy: reject duplicate.`);
  if (
    policy === IdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY &&
    !failedStatuses.includes(previous.status)
  )
    throw alreadyExists(
      `Workflow execution already finished successfully. ${ids}. Workflow id reuse policy: allow duplicate workflows if last run failed.`,
    );
}

/** Creates a run, writes WorkflowExecutionStarted and schedules its first workflow task. A run continuing a child is a child too. */
export function createRun(
  ctx: EngineContext,
  request: StartRequest,
  continued?: ContinuedFrom,
  parent = continued?.previous.parent,
): Execution {
  const now = ctx.clock.now();
  // a cron workflow's first run waits for its first cron time
  const cron = continued ? undefined : cronFirstRun(request.cronSchedule, now);
  const backoffMs = continued?.backoffMs ?? cron?.backoffMs ?? 0;
  const runId = continued?.runId ?? ctx.newRunId();
  const executionTimeoutMs = durationToMs(request.workflowExecutionTimeout);
  const executionDeadline = continued
    ? continued.previous.executionDeadline
    : executionTimeoutMs
      ? now + executionTimeoutMs
      : undefined;
  let runTimeoutMs = durationToMs(request.workflowRunTimeout) || executionTimeoutMs;
  if (executionDeadline !== undefined)
    runTimeoutMs = Math.min(runTimeoutMs || Infinity, Math.max(1, executionDeadline - now));
  const workflowTaskTimeoutMs = Math.min(
    durationToMs(request.workflowTaskTimeout) || DEFAULT_WORKFLOW_TASK_TIMEOUT_MS,
    MAX_WORKFLOW_TASK_TIMEOUT_MS,
    runTimeoutMs || Infinity,
  );
  const execution: Execution = {
    namespace: request.namespace!,
    workflowId: request.workflowId!,
    runId,
    firstRunId: continued?.previous.firstRunId ?? runId,
    workflowType: request.workflowType!.name!,
    taskQueue: request.taskQueue!.name!,
    status: ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
    startTime: now,
    executionTime: now + backoffMs,
    requestIds: new Set(request.requestId ? [request.requestId] : []),
    startRequest: packStartRequest(request),
    workflowTaskTimeoutMs,
    runTimeoutMs,
    executionTimeoutMs,
    executionDeadline,
    memo: request.memo,
    searchAttributes: packSearchAttributes(request.searchAttributes),
    history: ctx.store.histories.create(),
    buffered: [],
    nextWorkflowTaskAttempt: 1,
    lastCompletedStartedEventId: 0,
    activities: new Map(),
    timers: new Map(),
    updates: new Map(),
    cancelRequested: false,
    attempt: continued?.attempt ?? 1,
    parent,
    children: new Map(),
  };
  ctx.store.insertRun(execution);
  ctx.appendEvent(
    execution,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
    {
      workflowType: { name: execution.workflowType },
      taskQueue: { name: execution.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      input: request.input,
      workflowExecutionTimeout: msToDuration(executionTimeoutMs),
      workflowRunTimeout: msToDuration(runTimeoutMs),
      workflowTaskTimeout: msToDuration(workflowTaskTimeoutMs),
      continuedExecutionRunId: continued?.previous.runId ?? '',
      initiator: continued?.initiator ?? cron?.initiator ?? 0,
      // a first run may be handed them too (a schedule's start)
      continuedFailure: continued ? continued.continuedFailure : request.continuedFailure,
      lastCompletionResult: continued ? continued.lastCompletionResult : request.lastCompletionResult,
      originalExecutionRunId: runId,
      identity: request.identity,
      firstExecutionRunId: execution.firstRunId,
      retryPolicy: request.retryPolicy,
      cronSchedule: request.cronSchedule,
      attempt: execution.attempt,
      firstWorkflowTaskBackoff: backoffMs ? msToDuration(backoffMs) : undefined,
      workflowExecutionExpirationTime: executionDeadline
        ? { seconds: Math.floor(executionDeadline / 1000) }
        : undefined,
      memo: request.memo,
      searchAttributes: request.searchAttributes,
      header: request.header,
      workflowId: execution.workflowId,
      priority: request.priority,
      ...parentStartedAttributes(parent),
    },
    request.userMetadata ? { userMetadata: request.userMetadata } : {},
  );
  armRunTimeout(ctx, execution);
  if (backoffMs) armFirstTaskTimer(ctx, execution);
  else ctx.scheduleWorkflowTask(execution);
  return execution;
}

/**
 * The run timeout (also on a run loaded from a durable store): as on the real server, it counts from the run's
 * execution time (its start plus a retry's or cron run's first-task backoff), and never runs past the execution deadline.
 */
export function armRunTimeout(ctx: EngineContext, execution: Execution): void {
  if (!execution.runTimeoutMs) return;
  const at = Math.min(execution.executionTime + execution.runTimeoutMs, execution.executionDeadline ?? Infinity);
  execution.runTimeoutTimer = ctx.clock.at(at, () => timeOut(ctx, execution));
}

/** A retried run's first workflow task waits for the retry backoff (until its execution time). */
export function armFirstTaskTimer(ctx: EngineContext, execution: Execution): void {
  execution.firstTaskTimer = ctx.clock.at(execution.executionTime, () => {
    execution.firstTaskTimer = undefined;
    ctx.touch(execution);
    ctx.scheduleWorkflowTask(execution);
  });
}

/** Finds the run a request names: by run id, or the current run of the workflow id. */
export function findRun(
  ctx: EngineContext,
  namespace: string | null | undefined,
  ref: { workflowId?: string | null; runId?: string | null } | null | undefined,
): Execution {
  const ns = ctx.requireNamespace(namespace).name;
  const workflowId = requireField(ref?.workflowId, 'workflowExecution.workflowId');
  const execution = ref?.runId ? ctx.store.getRun(ref.runId) : ctx.store.getCurrentRun(ns, workflowId);
  if (!execution || execution.namespace !== ns || execution.workflowId !== workflowId)
    throw notFound(
      `Workflow execution not found. WorkflowId: ${workflowId}${ref?.runId ? `, RunId: ${ref.runId}` : ''}.`,
    );
  return execution;
}

export function requireRunning(execution: Execution): void {
  if (!isRunning(execution)) throw notFound('workflow execution already completed');
}

export function signal(
  ctx: EngineContext,
  execution: Execution,
  signal: {
    signalName: string;
    input?: Payloads | null;
    header?: Header | null;
    identity?: string | null;
    requestId?: string | null;
    externalWorkflowExecution?: WorkflowRef;
  },
): void {
  checkSignalInput(
    ctx.options.limits,
    signal.input,
    `signal ${signal.signalName} to ${execution.workflowId}: input`,
    ctx.log,
  );
  // a retry of a signal delivered already: nothing to do, even once the run has closed
  if (isDuplicateSignal(execution, signal.requestId)) return;
  requireRunning(execution);
  rememberSignal(execution, signal.requestId);
  ctx.external(execution, [
    {
      eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
      // externalWorkflowExecution: the sender of a SignalExternalWorkflowExecution command
      attributes: {
        signalName: signal.signalName,
        input: signal.input,
        identity: signal.identity,
        header: signal.header,
        requestId: signal.requestId,
        externalWorkflowExecution: signal.externalWorkflowExecution,
      },
    },
  ]);
}

/** `external`: the workflow asking (a RequestCancelExternalWorkflowExecution command, or its parent closing). */
export function requestCancel(
  ctx: EngineContext,
  execution: Execution,
  reason: string,
  identity: string,
  external?: { initiatedEventId?: number; workflowExecution: WorkflowRef },
): void {
  requireRunning(execution);
  if (execution.cancelRequested) return; // asking twice changes nothing, as on the real server
  execution.cancelRequested = true;
  ctx.touch(execution);
  const attributes = {
    cause: reason,
    identity,
    externalInitiatedEventId: external?.initiatedEventId,
    externalWorkflowExecution: external?.workflowExecution,
  };
  ctx.external(execution, [{ eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED, attributes }]);
}

export function terminate(
  ctx: EngineContext,
  execution: Execution,
  reason: string,
  identity: string,
  details?: Payloads | null,
): void {
  requireRunning(execution);
  const task = execution.workflowTask;
  if (task?.state === 'started' && !task.transientEvents) {
    // the task in a worker's hands can no longer complete: record it failed first, as the real server does
    ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, {
      scheduledEventId: task.scheduledEventId,
      startedEventId: task.startedEventId,
      cause: WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
    });
  }
  ctx.flushBuffered(execution);
  ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, { reason, details, identity });
  close(ctx, execution, ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED);
}

/** Who terminates a run on the server's own account, as the real server names itself. */
export const HISTORY_SERVICE_IDENTITY = 'history-service';

/** A workflow task refused with a WorkflowTaskRefusal (its failure is written): no new task, the run is terminated. */
export function terminateForRefusedTask(ctx: EngineContext, execution: Execution, reason: string): void {
  ctx.clock.cancel(execution.workflowTask?.timeoutTimer);
  execution.workflowTask = undefined;
  terminate(ctx, execution, reason, HISTORY_SERVICE_IDENTITY);
}

function timeOut(ctx: EngineContext, execution: Execution): void {
  if (!isRunning(execution)) return;
  ctx.flushBuffered(execution);
  const failure: Failure = {
    message: 'workflow run timed out',
    source: 'Server',
    timeoutFailureInfo: { timeoutType: TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE },
  };
  endWithRetry(ctx, execution, failure, 'timedOut', 0);
}

/** The workflow failed (a command from its code): retried when its retry policy allows, else closed Failed. */
export function failWorkflow(
  ctx: EngineContext,
  execution: Execution,
  failure: Failure,
  workflowTaskCompletedEventId: number,
): void {
  endWithRetry(ctx, execution, failure, 'failed', workflowTaskCompletedEventId);
}

/**
 * Ends a failed or timed-out run. With a retry policy that allows another attempt, the close event names
 * the new run (the client follows it) and that run starts after the backoff, as on the real server.
 */
function endWithRetry(
  ctx: EngineContext,
  execution: Execution,
  failure: Failure,
  how: 'failed' | 'timedOut',
  workflowTaskCompletedEventId: number,
): void {
  const policy = execution.startRequest.unpack().retryPolicy;
  const decision = policy
    ? retryDecision(
        normalizeRetryPolicy(policy),
        execution.attempt,
        failure,
        ctx.clock.now(),
        execution.executionDeadline ?? Infinity,
      )
    : {
        retryState: how === 'failed' ? RetryState.RETRY_STATE_RETRY_POLICY_NOT_SET : RetryState.RETRY_STATE_TIMEOUT,
        delayMs: 0,
      };
  const retrying = decision.retryState === RetryState.RETRY_STATE_IN_PROGRESS;
  // past its retries, a cron workflow goes on with its next cron run
  const cron = retrying ? undefined : nextCronRun(ctx, execution, { completed: false, failure });
  const newExecutionRunId = retrying ? ctx.newRunId() : (cron?.runId ?? '');
  if (how === 'failed') {
    ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, {
      failure,
      retryState: decision.retryState,
      workflowTaskCompletedEventId,
      newExecutionRunId,
    });
    close(ctx, execution, ExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED);
  } else {
    ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, {
      retryState: decision.retryState,
      newExecutionRunId,
    });
    close(ctx, execution, ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT);
  }
  if (cron) startCronRun(ctx, execution, cron);
  if (!retrying) return;
  ctx.log(
    `workflow ${execution.workflowId} attempt ${execution.attempt} ${how === 'failed' ? 'failed' : 'timed out'}; retry in ${decision.delayMs} ms`,
  );
  createRun(
    ctx,
    {
      ...execution.startRequest.unpack(),
      memo: execution.memo,
      searchAttributes: execution.searchAttributes.unpack(),
      requestId: ctx.newRunId(),
    },
    {
      previous: execution,
      runId: newExecutionRunId,
      initiator: ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_RETRY,
      continuedFailure: failure,
      attempt: execution.attempt + 1,
      backoffMs: decision.delayMs,
    },
  );
}

/** The workflow completed (a command from its code); a cron workflow goes on with its next cron run. */
export function completeWorkflow(
  ctx: EngineContext,
  execution: Execution,
  result: Payloads | null | undefined,
  workflowTaskCompletedEventId: number,
): void {
  const cron = nextCronRun(ctx, execution, { completed: true, result });
  ctx.appendEvent(execution, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, {
    result,
    workflowTaskCompletedEventId,
    newExecutionRunId: cron?.runId ?? '',
  });
  close(ctx, execution, ExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
  if (cron) startCronRun(ctx, execution, cron);
}

/** The next run of a cron workflow, as its first run was started (./cron.ts). */
function startCronRun(ctx: EngineContext, previous: Execution, next: CronRun): void {
  createRun(
    ctx,
    { ...previous.startRequest.unpack(), requestId: ctx.newRunId() },
    { previous, initiator: ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE, ...next },
  );
}

/** Marks a run closed and drops everything still pending on it. */
export function close(ctx: EngineContext, execution: Execution, status: number): void {
  ctx.touch(execution);
  execution.status = status;
  execution.closeTime = ctx.clock.now();
  ctx.clock.cancel(execution.runTimeoutTimer);
  ctx.clock.cancel(execution.firstTaskTimer);
  for (const timer of execution.timers.values()) ctx.clock.cancel(timer.handle);
  execution.timers.clear();
  for (const activity of execution.activities.values()) cancelActivityTimers(ctx, activity);
  execution.activities.clear();
  execution.buffered = [];
  ctx.clock.cancel(execution.workflowTask?.timeoutTimer);
  execution.workflowTask = undefined;
  // updates still waiting for an outcome learn that the run is gone
  for (const update of execution.updates.values()) ctx.watchers.changed(updateKey(execution.runId, update.updateId));
  ctx.watchers.changed(historyKey(execution.runId));
  ctx.retain(execution);
  onRunClosed(ctx, execution);
}

/** Closes `previous` as continued-as-new and starts the next run of the chain. */
export function continueAsNew(
  ctx: EngineContext,
  previous: Execution,
  attrs: import('@temporalio/proto').temporal.api.command.v1.IContinueAsNewWorkflowExecutionCommandAttributes,
  workflowTaskCompletedEventId: number,
): void {
  const newRunId = ctx.newRunId();
  const started = previous.startRequest.unpack();
  const taskQueue = attrs.taskQueue?.name ? attrs.taskQueue : started.taskQueue;
  const workflowType = attrs.workflowType?.name ? attrs.workflowType : started.workflowType;
  ctx.appendEvent(previous, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW, {
    newExecutionRunId: newRunId,
    workflowType,
    taskQueue: { name: taskQueue!.name, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    input: attrs.input,
    workflowRunTimeout: attrs.workflowRunTimeout,
    workflowTaskTimeout: attrs.workflowTaskTimeout,
    header: attrs.header,
    initiator: attrs.initiator,
    failure: attrs.failure,
    lastCompletionResult: attrs.lastCompletionResult,
    workflowTaskCompletedEventId,
  });
  close(ctx, previous, ExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW);
  createRun(
    ctx,
    {
      ...started,
      workflowType,
      taskQueue,
      input: attrs.input,
      header: attrs.header,
      memo: attrs.memo ?? previous.memo,
      searchAttributes: attrs.searchAttributes ?? previous.searchAttributes.unpack(),
      workflowRunTimeout: attrs.workflowRunTimeout ?? started.workflowRunTimeout,
      workflowTaskTimeout: attrs.workflowTaskTimeout ?? started.workflowTaskTimeout,
      retryPolicy: attrs.retryPolicy ?? started.retryPolicy,
      // as on the real server, the command's (the SDK sends none: continuing as new ends a cron chain)
      cronSchedule: attrs.cronSchedule,
      requestId: ctx.newRunId(),
    },
    {
      previous,
      runId: newRunId,
      initiator: attrs.initiator ?? 0,
      lastCompletionResult: attrs.lastCompletionResult,
      continuedFailure: attrs.failure,
    },
  );
}
