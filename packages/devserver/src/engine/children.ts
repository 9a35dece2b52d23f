/**
 * Child workflows, as the real server runs them:
 *
 * - a StartChildWorkflowExecution command writes StartChildWorkflowExecutionInitiated and the parent counts the
 *   child as pending; once the completion's commands are all applied (./transfers.ts) the child run starts, its
 *   WorkflowExecutionStarted naming the parent (and the root of the tree), and the parent records
 *   ChildWorkflowExecutionStarted — or StartChildWorkflowExecutionFailed (WORKFLOW_ALREADY_EXISTS) when the
 *   child's workflow id reuse policy refuses the start;
 * - when the child's last run closes (runs that continue as new, retry or follow a cron schedule stay the parent's
 *   child), the parent records ChildWorkflowExecutionCompleted / Failed / Canceled / TimedOut / Terminated and gets
 *   a workflow task;
 * - when the parent closes, for any reason (continue-as-new too), each started child still open gets its parent
 *   close policy: TERMINATE (the default), REQUEST_CANCEL or ABANDON.
 *
 * All of it follows from history (the parent's Initiated, Started and closing events, the child's Started
 * event), so a durable store rebuilds it on load: childrenFromHistory, parentFromHistory.
 */
import { status } from '@grpc/grpc-js';
import { RpcError } from '../errors.js';
import type { ChildState, Execution, ParentLink, StartRequest } from '../execution.js';
import { api, durationError, EventType, IdReusePolicy, TaskQueueKind, WorkflowTaskFailedCause } from '../proto.js';
import type { HistoryEvent } from '../proto.js';
import type proto from '@temporalio/proto';
import { eventAttributes } from '../persistence/codec.js';
import { validateSearchAttributes } from '../visibility/search-attributes.js';
import { isRunning } from './context.js';
import { cronScheduleError } from './cron.js';
import type { EngineContext } from './context.js';
import { HISTORY_SERVICE_IDENTITY, requestCancel, startWorkflow, terminate } from './executions.js';
import { searchAttributesCountError } from './limits.js';
import { retryPolicyError } from './retry.js';
import { failTask } from './task-refusals.js';
import { deliverToRun } from './transfers.js';

type StartChildAttributes = proto.temporal.api.command.v1.IStartChildWorkflowExecutionCommandAttributes;
type InitiatedAttributes = proto.temporal.api.history.v1.IStartChildWorkflowExecutionInitiatedEventAttributes;

const { ParentClosePolicy, StartChildWorkflowExecutionFailedCause } = api.enums.v1;
const COMMAND = 'StartChildWorkflowExecution';

/** Refuses what the real server refuses in the command (before anything is written): the task fails with the cause. */
export function validateStartChild(
  ctx: EngineContext,
  parent: Execution,
  attrs: StartChildAttributes | null | undefined,
): void {
  const bad = (rule: string) =>
    failTask(
      WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_START_CHILD_EXECUTION_ATTRIBUTES,
      `${COMMAND}${rule}`,
    );
  if (!attrs) throw bad(': the command has no attributes');
  const namespace = ctx.requireNamespace(attrs.namespace || parent.namespace);
  if (!attrs.workflowId) throw bad('.workflowId is required');
  if (!attrs.workflowType?.name) throw bad('.workflowType.name is required');
  for (const field of ['workflowExecutionTimeout', 'workflowRunTimeout', 'workflowTaskTimeout'] as const) {
    const problem = durationError(attrs[field]);
    if (problem) throw bad(`.${field} ${problem}`);
  }
  const retryProblem = retryPolicyError(attrs.retryPolicy);
  if (retryProblem) throw bad(`.${retryProblem}`);
  const cronProblem = cronScheduleError(attrs.cronSchedule, ctx.clock.now());
  if (cronProblem) throw bad(`.cronSchedule: ${cronProblem}`);
  const badSearchAttributes = (rule: string) =>
    failTask(WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES, `${COMMAND}${rule}`);
  const countError = searchAttributesCountError(ctx.options.limits, attrs.searchAttributes);
  if (countError) throw badSearchAttributes(`.${countError}`);
  try {
    validateSearchAttributes(attrs.searchAttributes, namespace.searchAttributes, namespace.name);
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    throw badSearchAttributes(`: ${error.message}`);
  }
}

/** The command: StartChildWorkflowExecutionInitiated, with the real server's defaults filled in; the child is pending. */
export function initiateChild(
  ctx: EngineContext,
  parent: Execution,
  attrs: StartChildAttributes,
  workflowTaskCompletedEventId: number,
  userMetadata?: object | null,
): void {
  const namespace = attrs.namespace || parent.namespace;
  const parentClosePolicy = attrs.parentClosePolicy || ParentClosePolicy.PARENT_CLOSE_POLICY_TERMINATE;
  const event = ctx.appendEvent(
    parent,
    EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
    {
      namespace,
      namespaceId: ctx.store.getNamespace(namespace)!.id,
      workflowId: attrs.workflowId,
      workflowType: attrs.workflowType,
      taskQueue: attrs.taskQueue?.name
        ? attrs.taskQueue
        : { name: parent.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      input: attrs.input,
      workflowExecutionTimeout: attrs.workflowExecutionTimeout,
      workflowRunTimeout: attrs.workflowRunTimeout,
      workflowTaskTimeout: attrs.workflowTaskTimeout,
      parentClosePolicy,
      control: attrs.control,
      workflowTaskCompletedEventId,
      workflowIdReusePolicy: attrs.workflowIdReusePolicy || IdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
      retryPolicy: attrs.retryPolicy,
      cronSchedule: attrs.cronSchedule,
      header: attrs.header,
      memo: attrs.memo,
      searchAttributes: attrs.searchAttributes,
      inheritBuildId: attrs.inheritBuildId,
      priority: attrs.priority,
    },
    userMetadata ? { userMetadata } : {},
  );
  parent.children.set(event.eventId, {
    initiatedEventId: event.eventId,
    namespace,
    workflowId: attrs.workflowId!,
    workflowType: attrs.workflowType!.name!,
    parentClosePolicy,
  });
}

/**
 * Starts the child an Initiated event asks for (./transfers.ts, with the parent's completion still open): the
 * parent records ChildWorkflowExecutionStarted, or StartChildWorkflowExecutionFailed when the id is taken.
 */
export function startInitiatedChild(ctx: EngineContext, parent: Execution, initiated: HistoryEvent): void {
  const attrs = eventAttributes<InitiatedAttributes>(initiated);
  const child = parent.children.get(initiated.eventId)!;
  const request: StartRequest = {
    namespace: attrs.namespace,
    workflowId: attrs.workflowId,
    workflowType: attrs.workflowType,
    taskQueue: attrs.taskQueue,
    input: attrs.input,
    workflowExecutionTimeout: attrs.workflowExecutionTimeout,
    workflowRunTimeout: attrs.workflowRunTimeout,
    workflowTaskTimeout: attrs.workflowTaskTimeout,
    requestId: ctx.newRunId(),
    workflowIdReusePolicy: attrs.workflowIdReusePolicy,
    retryPolicy: attrs.retryPolicy,
    cronSchedule: attrs.cronSchedule,
    memo: attrs.memo,
    searchAttributes: attrs.searchAttributes,
    header: attrs.header,
    priority: attrs.priority,
    userMetadata: initiated.userMetadata as StartRequest['userMetadata'],
  };
  const target = {
    namespace: attrs.namespace,
    namespaceId: attrs.namespaceId,
    workflowType: attrs.workflowType,
    initiatedEventId: initiated.eventId,
  };
  let run: Execution;
  try {
    run = startWorkflow(ctx, request, parentLink(ctx, parent, initiated.eventId)).execution;
  } catch (error) {
    if (!(error instanceof RpcError) || error.code !== status.ALREADY_EXISTS) throw error;
    parent.children.delete(initiated.eventId);
    ctx.appendEvent(parent, EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED, {
      ...target,
      workflowId: attrs.workflowId,
      control: attrs.control,
      cause: StartChildWorkflowExecutionFailedCause.START_CHILD_WORKFLOW_EXECUTION_FAILED_CAUSE_WORKFLOW_ALREADY_EXISTS,
      workflowTaskCompletedEventId: attrs.workflowTaskCompletedEventId,
    });
    return;
  }
  // a child started with TERMINATE_IF_RUNNING on the parent's own workflow id has just terminated the parent
  if (!isRunning(parent)) return;
  const started = ctx.appendEvent(parent, EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED, {
    ...target,
    workflowExecution: { workflowId: run.workflowId, runId: run.runId },
    header: attrs.header,
  });
  child.runId = run.runId;
  child.startedEventId = started.eventId;
}

function parentLink(ctx: EngineContext, parent: Execution, initiatedEventId: number): ParentLink {
  return {
    namespace: parent.namespace,
    namespaceId: ctx.store.getNamespace(parent.namespace)!.id,
    workflowId: parent.workflowId,
    runId: parent.runId,
    initiatedEventId,
    root: parent.parent?.root ?? { workflowId: parent.workflowId, runId: parent.runId },
  };
}

/** What a child's WorkflowExecutionStarted says of its parent (nothing for a run that is no child). */
export function parentStartedAttributes(link: ParentLink | undefined): object {
  if (!link) return {};
  return {
    parentWorkflowNamespace: link.namespace,
    parentWorkflowNamespaceId: link.namespaceId,
    parentWorkflowExecution: { workflowId: link.workflowId, runId: link.runId },
    parentInitiatedEventId: link.initiatedEventId,
    rootWorkflowExecution: link.root,
  };
}

/** A run has closed: as a child, it tells its parent; as a parent, its children get their parent close policy. */
export function onRunClosed(ctx: EngineContext, execution: Execution): void {
  reportToParent(ctx, execution);
  applyParentClosePolicies(ctx, execution);
}

/** The parent's event for a child run's close event; undefined when another run carries the child on. */
function childClosedEvent(close: HistoryEvent | undefined): { eventType: number; attributes: object } | undefined {
  if (!close) return undefined;
  const attrs = eventAttributes(close);
  if (attrs.newExecutionRunId) return undefined; // retried (or a cron run): the last run reports
  switch (close.eventType) {
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
      return {
        eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED,
        attributes: { result: attrs.result },
      };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
      return {
        eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED,
        attributes: { failure: attrs.failure, retryState: attrs.retryState },
      };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
      return {
        eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED,
        attributes: { details: attrs.details },
      };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
      return { eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED, attributes: {} };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
      return {
        eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT,
        attributes: { retryState: attrs.retryState },
      };
    default:
      return undefined; // continued as new
  }
}

/** The child's last run closed: the parent, still open and still waiting for this child, records how. */
function reportToParent(ctx: EngineContext, child: Execution): void {
  const link = child.parent;
  const closed = link && childClosedEvent(child.history.at(-1));
  if (!link || !closed) return;
  const parent = ctx.store.getRun(link.runId);
  const state = parent?.children.get(link.initiatedEventId);
  if (
    !parent ||
    !isRunning(parent) ||
    !state ||
    state.workflowId !== child.workflowId ||
    state.runId !== child.firstRunId
  )
    return;
  parent.children.delete(link.initiatedEventId);
  deliverToRun(ctx, parent, [
    {
      eventType: closed.eventType,
      attributes: {
        initiatedEventId: state.initiatedEventId,
        startedEventId: state.startedEventId,
        namespace: state.namespace,
        namespaceId: ctx.store.getNamespace(state.namespace)?.id,
        workflowExecution: { workflowId: child.workflowId, runId: child.runId },
        workflowType: { name: state.workflowType },
        ...closed.attributes,
      },
    },
  ]);
}

/** The real server's parent close policy: the child's current run, if it still belongs to the child the parent started. */
function applyParentClosePolicies(ctx: EngineContext, parent: Execution): void {
  for (const child of parent.children.values()) {
    if (!child.runId || child.parentClosePolicy === ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON) continue;
    const run = ctx.store.getCurrentRun(child.namespace, child.workflowId);
    if (!run || !isRunning(run) || run.firstRunId !== child.runId) continue;
    if (child.parentClosePolicy === ParentClosePolicy.PARENT_CLOSE_POLICY_REQUEST_CANCEL)
      requestCancel(ctx, run, '', HISTORY_SERVICE_IDENTITY, {
        workflowExecution: { workflowId: parent.workflowId, runId: parent.runId },
      });
    else terminate(ctx, run, 'by parent close policy', HISTORY_SERVICE_IDENTITY);
  }
}

/** DescribeWorkflowExecution: the parent and the root of the tree (the run itself when it is no child). */
export function describeFamily(execution: Execution): object {
  const link = execution.parent;
  if (!link) return { rootExecution: { workflowId: execution.workflowId, runId: execution.runId } };
  return {
    parentNamespaceId: link.namespaceId,
    parentExecution: { workflowId: link.workflowId, runId: link.runId },
    rootExecution: link.root,
  };
}

/** DescribeWorkflowExecution's pendingChildren. */
export function describePendingChildren(execution: Execution): object[] {
  return [...execution.children.values()].map((child) => ({
    workflowId: child.workflowId,
    runId: child.runId ?? '',
    workflowTypeName: child.workflowType,
    initiatedId: child.initiatedEventId,
    parentClosePolicy: child.parentClosePolicy,
  }));
}

const CLOSES_CHILD = new Set<number>([
  EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED,
]);

/** The pending children, as history (and the events still to be written) tells them. */
export function childrenFromHistory(events: HistoryEvent[]): Map<number, ChildState> {
  const children = new Map<number, ChildState>();
  for (const event of events) {
    const attrs = eventAttributes(event);
    if (event.eventType === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)
      children.set(event.eventId, {
        initiatedEventId: event.eventId,
        namespace: attrs.namespace ?? '',
        workflowId: attrs.workflowId ?? '',
        workflowType: attrs.workflowType?.name ?? '',
        parentClosePolicy: attrs.parentClosePolicy ?? 0,
      });
    else if (event.eventType === EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED) {
      const child = children.get(Number(attrs.initiatedEventId ?? 0));
      if (child) Object.assign(child, { runId: attrs.workflowExecution?.runId ?? '', startedEventId: event.eventId });
    } else if (CLOSES_CHILD.has(event.eventType)) children.delete(Number(attrs.initiatedEventId ?? 0));
  }
  return children;
}

/** The parent link a run's WorkflowExecutionStarted event carries. */
export function parentFromHistory(history: HistoryEvent[]): ParentLink | undefined {
  const started = history[0];
  const attrs = started ? eventAttributes(started) : {};
  if (!attrs.parentWorkflowExecution?.workflowId) return undefined;
  return {
    namespace: attrs.parentWorkflowNamespace ?? '',
    namespaceId: attrs.parentWorkflowNamespaceId ?? '',
    workflowId: attrs.parentWorkflowExecution.workflowId,
    runId: attrs.parentWorkflowExecution.runId ?? '',
    initiatedEventId: Number(attrs.parentInitiatedEventId ?? 0),
    root: {
      workflowId: attrs.rootWorkflowExecution?.workflowId ?? '',
      runId: attrs.rootWorkflowExecution?.runId ?? '',
    },
  };
}
