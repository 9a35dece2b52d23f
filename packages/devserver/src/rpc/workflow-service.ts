/** temporal.api.workflowservice.v1.WorkflowService: what the SDK client and worker call. */
import type proto from '@temporalio/proto';
import { alreadyExists, invalidArgument, requireField } from '../errors.js';
import type { Execution } from '../execution.js';
import {
  api,
  durationToMs,
  msToDuration,
  msToTimestamp,
  PendingActivityState,
  TaskQueueKind,
  UpdateStage,
} from '../proto.js';
import type { EngineContext } from '../engine/context.js';
import { historyKey, isRunning } from '../engine/context.js';
import {
  findRun,
  requestCancel,
  requireRunning,
  signal,
  startWorkflow,
  terminate,
  validateStartRequest,
} from '../engine/executions.js';
import { completeWorkflowTask, failWorkflowTask } from '../engine/workflow-tasks.js';
import { activityCanceled, completeActivity, failActivity, heartbeat } from '../engine/activities.js';
import { query, respondQuery } from '../engine/queries.js';
import { admitUpdate, findUpdate, waitForUpdate } from '../engine/updates.js';
import { checkSignalInput, failureWithinLimit } from '../engine/limits.js';
import type { Limits } from '../engine/limits.js';
import { forgetSticky } from '../engine/sticky.js';
import { findRunOfChain } from '../engine/run-chains.js';
import { describeFamily, describePendingChildren } from '../engine/children.js';
import { executionInfo, SYSTEM_SEARCH_ATTRIBUTES, toIndexedValueType } from '../visibility/index.js';
import type { NamespaceRecord } from '../store.js';
import type { CallContext, RequestOf, ServiceHandlers } from './grpc-server.js';

type V1 = typeof proto.temporal.api.workflowservice.v1;
type Req<K extends keyof V1> = RequestOf<V1[K]>;

export const SERVER_VERSION = '1.27.0-mve-devserver';
const DEFAULT_RETENTION_MS = 24 * 3600_000;

/** The limits are reported as the real server reports them: the SDK's worker enforces them on what it sends. */
function describeNamespace(record: NamespaceRecord, limits: Limits): object {
  return {
    namespaceInfo: {
      name: record.name,
      id: record.id,
      state: api.enums.v1.NamespaceState.NAMESPACE_STATE_REGISTERED,
      capabilities: { eagerWorkflowStart: false, syncUpdate: true, asyncUpdate: true },
      limits: { blobSizeLimitError: limits.blobSizeError, memoSizeLimitError: limits.memoSizeError },
    },
    config: { workflowExecutionRetentionTtl: msToDuration(record.retentionMs) },
    isGlobalNamespace: false,
  };
}

/** The history page a GetWorkflowExecutionHistory request asks for, or null when it must wait. */
function historyAnswer(
  execution: Execution,
  request: Req<'GetWorkflowExecutionHistoryRequest'>,
  from: number,
): object | null {
  const closeOnly =
    request.historyEventFilterType === api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT;
  if (closeOnly) return isRunning(execution) ? null : { history: { events: execution.history.slice(-1) } };
  const pageSize = request.maximumPageSize && request.maximumPageSize > 0 ? request.maximumPageSize : 1000;
  const events = execution.history.slice(from, from + pageSize);
  if (!events.length && request.waitNewEvent && isRunning(execution)) return null;
  const next = from + events.length;
  const more = next < execution.history.length || (request.waitNewEvent && isRunning(execution));
  return { history: { events }, nextPageToken: more ? Buffer.from(String(next)) : Buffer.alloc(0) };
}

async function getHistory(
  ctx: EngineContext,
  request: Req<'GetWorkflowExecutionHistoryRequest'>,
  call: CallContext,
): Promise<object> {
  const execution = findRun(ctx, request.namespace, request.execution);
  const from = request.nextPageToken?.length ? Number(Buffer.from(request.nextPageToken).toString('utf8')) : 0;
  if (!Number.isInteger(from) || from < 0) throw invalidArgument('nextPageToken is not one this server issued');
  const answer = historyAnswer(execution, request, from);
  if (answer || !request.waitNewEvent) return answer ?? { history: { events: [] } };
  const waitsForResult =
    request.historyEventFilterType === api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT;
  if (waitsForResult) {
    ctx.resultWaiters++;
    ctx.clock.requestSkip();
  }
  try {
    await ctx.watchers.waitUntil(
      historyKey(execution.runId),
      () => historyAnswer(execution, request, from) !== null,
      ctx.options.longPollMs,
      call.onCancel,
    );
  } finally {
    if (waitsForResult) ctx.resultWaiters--;
  }
  return (
    historyAnswer(execution, request, from) ?? { history: { events: [] }, nextPageToken: Buffer.from(String(from)) }
  );
}

function describeExecution(ctx: EngineContext, execution: Execution): object {
  const now = ctx.clock.now();
  return {
    executionConfig: {
      taskQueue: { name: execution.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      workflowExecutionTimeout: msToDuration(execution.executionTimeoutMs),
      workflowRunTimeout: msToDuration(execution.runTimeoutMs),
      defaultWorkflowTaskTimeout: msToDuration(execution.workflowTaskTimeoutMs),
    },
    workflowExecutionInfo: { ...executionInfo(execution), ...describeFamily(execution) },
    pendingActivities: [...execution.activities.values()].map((a) => ({
      activityId: a.activityId,
      activityType: { name: a.activityType },
      state:
        a.cancelRequestedEventId !== undefined
          ? PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED
          : a.state === 'started'
            ? PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
            : PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED,
      heartbeatDetails: a.heartbeatDetails,
      lastHeartbeatTime: a.lastHeartbeatTime === undefined ? undefined : msToTimestamp(a.lastHeartbeatTime),
      lastStartedTime: a.startedTime === undefined ? undefined : msToTimestamp(a.startedTime),
      attempt: a.attempt,
      maximumAttempts: a.retryPolicy.maximumAttempts,
      scheduledTime: msToTimestamp(a.attemptScheduledTime),
      expirationTime: a.timeouts.scheduleToCloseMs
        ? msToTimestamp(a.firstScheduledTime + a.timeouts.scheduleToCloseMs)
        : undefined,
      lastFailure: a.lastFailure,
      lastWorkerIdentity: a.startedIdentity,
      currentRetryInterval:
        a.nextAttemptTime === undefined
          ? undefined
          : msToDuration(Math.max(0, a.nextAttemptTime - (a.lastAttemptCompleteTime ?? now))),
      lastAttemptCompleteTime:
        a.lastAttemptCompleteTime === undefined ? undefined : msToTimestamp(a.lastAttemptCompleteTime),
      nextAttemptScheduleTime: a.nextAttemptTime === undefined ? undefined : msToTimestamp(a.nextAttemptTime),
    })),
    pendingChildren: describePendingChildren(execution),
    pendingWorkflowTask: execution.workflowTask
      ? {
          state: execution.workflowTask.state === 'started' ? 2 : 1,
          scheduledTime: msToTimestamp(execution.workflowTask.scheduledTime),
          attempt: execution.workflowTask.attempt,
        }
      : undefined,
  };
}

export function workflowServiceHandlers(ctx: EngineContext): ServiceHandlers {
  return {
    GetSystemInfo: () => ({
      serverVersion: SERVER_VERSION,
      capabilities: {
        signalAndQueryHeader: true,
        internalErrorDifferentiation: true,
        activityFailureIncludeHeartbeat: true,
        supportsSchedules: true,
        encodedFailureAttributes: true,
        buildIdBasedVersioning: false,
        upsertMemo: true,
        eagerWorkflowStart: false,
        sdkMetadata: true,
        countGroupByExecutionStatus: false,
        nexus: false,
      },
    }),
    GetClusterInfo: () => ({
      serverVersion: SERVER_VERSION,
      clusterName: 'mve-devserver',
      historyShardCount: 1,
      persistenceStore: ctx.store.location ? 'postgres' : 'memory',
      visibilityStore: ctx.store.location ? 'postgres' : 'memory',
    }),
    DescribeNamespace: (req: Req<'DescribeNamespaceRequest'>) =>
      describeNamespace(ctx.requireNamespace(req.namespace), ctx.options.limits),
    ListNamespaces: () => ({
      namespaces: ctx.store.listNamespaces().map((record) => describeNamespace(record, ctx.options.limits)),
    }),
    RegisterNamespace: (req: Req<'RegisterNamespaceRequest'>) => {
      const name = requireField(req.namespace, 'namespace');
      if (ctx.store.getNamespace(name)) throw alreadyExists(`Namespace ${name} already exists.`);
      ctx.store.addNamespace(name, durationToMs(req.workflowExecutionRetentionPeriod) || DEFAULT_RETENTION_MS);
      return {};
    },
    GetSearchAttributes: () => {
      const keys: Record<string, number> = {};
      for (const [name, type] of Object.entries(SYSTEM_SEARCH_ATTRIBUTES)) keys[name] = toIndexedValueType(type);
      for (const ns of ctx.store.listNamespaces())
        for (const [name, type] of ns.searchAttributes) keys[name] = toIndexedValueType(type);
      return { keys };
    },

    StartWorkflowExecution: (req: Req<'StartWorkflowExecutionRequest'>) => {
      const { execution, started } = startWorkflow(ctx, req);
      return { runId: execution.runId, started };
    },
    SignalWithStartWorkflowExecution: (req: Req<'SignalWithStartWorkflowExecutionRequest'>) => {
      const signalName = requireField(req.signalName, 'signalName');
      // refused before anything starts, and whether or not the workflow is running (its start fields too)
      checkSignalInput(
        ctx.options.limits,
        req.signalInput,
        `signal-with-start ${signalName} of ${req.workflowId}: input`,
        ctx.log,
      );
      validateStartRequest(ctx, req);
      const namespace = ctx.requireNamespace(req.namespace).name;
      const current = ctx.store.getCurrentRun(namespace, requireField(req.workflowId, 'workflowId'));
      let execution = current && isRunning(current) ? current : undefined;
      let started = false;
      if (!execution) {
        const outcome = startWorkflow(ctx, { ...req, workflowIdConflictPolicy: undefined });
        execution = outcome.execution;
        started = outcome.started;
      }
      signal(ctx, execution, {
        signalName,
        input: req.signalInput,
        header: req.header,
        identity: req.identity,
        requestId: req.requestId,
      });
      return { runId: execution.runId, started };
    },
    SignalWorkflowExecution: (req: Req<'SignalWorkflowExecutionRequest'>) => {
      const execution = findRun(ctx, req.namespace, req.workflowExecution);
      signal(ctx, execution, {
        signalName: requireField(req.signalName, 'signalName'),
        input: req.input,
        header: req.header,
        identity: req.identity,
        requestId: req.requestId,
      });
      return {};
    },
    QueryWorkflow: (req: Req<'QueryWorkflowRequest'>) =>
      query(ctx, findRun(ctx, req.namespace, req.execution), req.query!),
    RespondQueryTaskCompleted: (req: Req<'RespondQueryTaskCompletedRequest'>) => (respondQuery(ctx, req), {}),
    TerminateWorkflowExecution: (req: Req<'TerminateWorkflowExecutionRequest'>) => {
      terminate(
        ctx,
        findRunOfChain(ctx, req.namespace, req.workflowExecution, req.firstExecutionRunId, 'current run'),
        req.reason ?? '',
        req.identity ?? '',
        req.details,
      );
      return {};
    },
    RequestCancelWorkflowExecution: (req: Req<'RequestCancelWorkflowExecutionRequest'>) => {
      const execution = findRunOfChain(
        ctx,
        req.namespace,
        req.workflowExecution,
        req.firstExecutionRunId,
        'current run',
      );
      // to a closed run, a success that changes nothing, as on the real server
      if (isRunning(execution)) requestCancel(ctx, execution, req.reason ?? '', req.identity ?? '');
      return {};
    },
    GetWorkflowExecutionHistory: (req: Req<'GetWorkflowExecutionHistoryRequest'>, call: CallContext) =>
      getHistory(ctx, req, call),
    DescribeWorkflowExecution: (req: Req<'DescribeWorkflowExecutionRequest'>) =>
      describeExecution(ctx, findRun(ctx, req.namespace, req.execution)),
    ListWorkflowExecutions: (req: Req<'ListWorkflowExecutionsRequest'>) =>
      ctx.visibility.list(ctx.requireNamespace(req.namespace), req.query ?? '', req.pageSize ?? 0, req.nextPageToken),
    CountWorkflowExecutions: (req: Req<'CountWorkflowExecutionsRequest'>) => ({
      count: ctx.visibility.count(ctx.requireNamespace(req.namespace), req.query ?? ''),
    }),

    UpdateWorkflowExecution: (req: Req<'UpdateWorkflowExecutionRequest'>, call: CallContext) => {
      const execution = findRunOfChain(ctx, req.namespace, req.workflowExecution, req.firstExecutionRunId, 'run named');
      requireField(req.request?.meta?.updateId, 'request.meta.updateId');
      requireField(req.request?.input?.name, 'request.input.name');
      const stage = req.waitPolicy?.lifecycleStage || UpdateStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED;
      if (stage === UpdateStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED)
        throw invalidArgument(
          'waitPolicy.lifecycleStage ADMITTED is not supported for UpdateWorkflowExecution; use ACCEPTED or COMPLETED',
        );
      const update = admitUpdate(ctx, execution, req.request!);
      return waitForUpdate(ctx, execution, update, stage, call.onCancel);
    },
    PollWorkflowExecutionUpdate: (req: Req<'PollWorkflowExecutionUpdateRequest'>, call: CallContext) => {
      const execution = findRun(ctx, req.namespace, req.updateRef?.workflowExecution);
      const update = findUpdate(execution, requireField(req.updateRef?.updateId, 'updateRef.updateId'));
      const stage = req.waitPolicy?.lifecycleStage || UpdateStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED;
      return waitForUpdate(ctx, execution, update, stage, call.onCancel);
    },

    PollWorkflowTaskQueue: (req: Req<'PollWorkflowTaskQueueRequest'>, call: CallContext) => {
      const namespace = ctx.requireNamespace(req.namespace).name;
      const name = requireField(req.taskQueue?.name, 'taskQueue.name');
      const poll = { identity: req.identity ?? '', onCancel: call.onCancel };
      if (req.taskQueue?.kind !== TaskQueueKind.TASK_QUEUE_KIND_STICKY)
        return ctx.matching.poll('workflow', namespace, name, poll, {});
      // with sticky execution off, a worker's sticky pollers serve its normal queue: parked, they would
      // leave the worker only its few normal pollers
      if (!ctx.options.stickyExecution && req.taskQueue.normalName)
        return ctx.matching.poll('workflow', namespace, req.taskQueue.normalName, poll, {});
      return ctx.matching.poll('sticky', namespace, name, poll, {});
    },
    RespondWorkflowTaskCompleted: (req: Req<'RespondWorkflowTaskCompletedRequest'>) => completeWorkflowTask(ctx, req),
    RespondWorkflowTaskFailed: (req: Req<'RespondWorkflowTaskFailedRequest'>) => {
      if (req.failure)
        req.failure = failureWithinLimit(ctx.options.limits, req.failure, 'workflow task failure', ctx.log);
      failWorkflowTask(ctx, req);
      return {};
    },
    PollActivityTaskQueue: (req: Req<'PollActivityTaskQueueRequest'>, call: CallContext) => {
      const namespace = ctx.requireNamespace(req.namespace).name;
      const name = requireField(req.taskQueue?.name, 'taskQueue.name');
      return ctx.matching.poll(
        'activity',
        namespace,
        name,
        { identity: req.identity ?? '', onCancel: call.onCancel },
        {},
      );
    },
    RespondActivityTaskCompleted: (req: Req<'RespondActivityTaskCompletedRequest'>) => (
      completeActivity(ctx, req.taskToken, req.result, req.identity ?? ''),
      {}
    ),
    RespondActivityTaskFailed: (req: Req<'RespondActivityTaskFailedRequest'>) => (
      failActivity(ctx, req.taskToken, req.failure, req.lastHeartbeatDetails),
      {}
    ),
    RespondActivityTaskCanceled: (req: Req<'RespondActivityTaskCanceledRequest'>) => (
      activityCanceled(ctx, req.taskToken, req.details, req.identity ?? ''),
      {}
    ),
    RecordActivityTaskHeartbeat: (req: Req<'RecordActivityTaskHeartbeatRequest'>) => ({
      ...heartbeat(ctx, req.taskToken, req.details),
      activityPaused: false,
      activityReset: false,
    }),
    // The worker is going away: its sticky queue goes with it (a task waiting there times out to the normal queue).
    ShutdownWorker: (req: Req<'ShutdownWorkerRequest'>) => {
      if (req.stickyTaskQueue) ctx.matching.unload('sticky', req.namespace ?? '', req.stickyTaskQueue);
      return {};
    },
    // The run's next task goes to the normal queue with the full history (one already waiting on the sticky queue times out there).
    ResetStickyTaskQueue: (req: Req<'ResetStickyTaskQueueRequest'>) => {
      const execution = findRun(ctx, req.namespace, req.execution);
      requireRunning(execution);
      forgetSticky(execution);
      return {};
    },
  };
}
