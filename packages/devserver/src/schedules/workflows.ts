/**
 * The workflows a schedule starts, through the engine as the real scheduler starts them through the frontend:
 * the start request (the workflow id with the nominal time appended, TemporalScheduledById and
 * TemporalScheduledStartTime, the previous run's result or failure), the chain a started workflow becomes
 * (continue-as-new, retries), how that chain ended, and the overlap policies' cancel and terminate.
 */
import { randomUUID } from 'node:crypto';
import type { Execution, StartRequest } from '../execution.js';
import { isRunning } from '../engine/context.js';
import type { EngineContext } from '../engine/context.js';
import { requestCancel, startWorkflow, terminate } from '../engine/executions.js';
import { eventAttributes } from '../persistence/codec.js';
import { EventType, ExecutionStatus, IdReusePolicy } from '../proto.js';
import type { Failure, Payload, Payloads, SearchAttributes } from '../proto.js';

export type NewWorkflow = import('@temporalio/proto').temporal.api.workflow.v1.INewWorkflowExecutionInfo;

/** The first run of a started workflow: the chain it heads is the schedule's "running workflow". */
export interface WorkflowRef {
  workflowId: string;
  runId: string;
}

export interface StartedAction {
  workflowId: string;
  runId: string;
  /** When it started (server time). */
  startedAt: number;
}

/** How a chain ended, as the scheduler needs it: status, and the result or failure to pass to the next start. */
export interface ChainOutcome {
  status: number;
  result?: Payloads | null;
  failure?: Failure | null;
}

/** Go's RFC 3339 of a whole second: 2024-05-01T10:00:00Z. */
const rfc3339Seconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

const jsonPayload = (value: string, type: string): Payload => ({
  metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from(type) },
  data: Buffer.from(JSON.stringify(value)),
});

export function schedulerIdentity(namespace: string, scheduleId: string): string {
  return `temporal-scheduler-${namespace}-${scheduleId}`;
}

export interface ActionStart {
  namespace: string;
  scheduleId: string;
  workflow: NewWorkflow;
  nominal: number;
  manual: boolean;
  lastCompletionResult?: Payloads | null;
  continuedFailure?: Failure | null;
}

/** Starts one action's workflow; throws the engine's RpcError when the start is refused (e.g. the id is taken). */
export function startScheduledWorkflow(ctx: EngineContext, start: ActionStart): StartedAction {
  const { workflow, nominal, scheduleId } = start;
  const workflowId = `${workflow.workflowId}-${rfc3339Seconds(nominal)}`;
  const searchAttributes: SearchAttributes = {
    indexedFields: {
      ...(workflow.searchAttributes?.indexedFields ?? {}),
      TemporalScheduledStartTime: jsonPayload(rfc3339Seconds(nominal), 'Datetime'),
      TemporalScheduledById: jsonPayload(scheduleId, 'Keyword'),
    },
  };
  const request: StartRequest = {
    namespace: start.namespace,
    workflowId,
    workflowType: workflow.workflowType,
    taskQueue: workflow.taskQueue,
    input: workflow.input,
    workflowExecutionTimeout: workflow.workflowExecutionTimeout,
    workflowRunTimeout: workflow.workflowRunTimeout,
    workflowTaskTimeout: workflow.workflowTaskTimeout,
    identity: schedulerIdentity(start.namespace, scheduleId),
    requestId: randomUUID(),
    // a scheduled time starts once; a trigger or backfill may repeat a time
    workflowIdReusePolicy: start.manual
      ? IdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
      : IdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
    retryPolicy: workflow.retryPolicy,
    memo: workflow.memo,
    searchAttributes,
    header: workflow.header,
    lastCompletionResult: start.lastCompletionResult,
    continuedFailure: start.continuedFailure,
    userMetadata: workflow.userMetadata,
    priority: workflow.priority,
  };
  const { execution } = startWorkflow(ctx, request);
  return { workflowId, runId: execution.runId, startedAt: ctx.clock.now() };
}

/** Close events that may name the run continuing the chain (continue-as-new, a retry, a cron run). */
const MAY_CONTINUE = new Set<number>([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

function successorOf(run: Execution): string | undefined {
  const close = run.history.at(-1);
  return (
    (close && MAY_CONTINUE.has(close.eventType) && (eventAttributes(close).newExecutionRunId as string | undefined)) ||
    undefined
  );
}

/** The last run of the chain `ref` heads (following its successors), or undefined when it is gone (retention). */
export function latestRunOf(ctx: EngineContext, ref: WorkflowRef): Execution | undefined {
  let run = ctx.store.getRun(ref.runId);
  for (
    let next = run && !isRunning(run) ? successorOf(run) : undefined;
    next;
    next = run && !isRunning(run) ? successorOf(run) : undefined
  ) {
    const following = ctx.store.getRun(next);
    if (!following) break;
    run = following;
  }
  return run;
}

/** How the chain ended: a completed run's result, a failed run's failure; UNSPECIFIED status when it is gone. */
export function chainOutcome(run: Execution | undefined): ChainOutcome {
  if (!run) return { status: ExecutionStatus.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED };
  const close = run.history.at(-1);
  const attrs = close ? eventAttributes(close) : {};
  if (run.status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED)
    return { status: run.status, result: attrs.result };
  if (run.status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED)
    return { status: run.status, failure: attrs.failure };
  return { status: run.status };
}

/** CANCEL_OTHER and TERMINATE_OTHER: the chain's current run is asked to cancel, or terminated. */
export function stopRunning(ctx: EngineContext, ref: WorkflowRef, how: 'cancel' | 'terminate', identity: string): void {
  const run = latestRunOf(ctx, ref);
  if (!run || !isRunning(run)) return;
  if (how === 'cancel') requestCancel(ctx, run, 'cancelled by schedule overlap policy', identity);
  else terminate(ctx, run, 'terminated by schedule overlap policy', identity);
}
