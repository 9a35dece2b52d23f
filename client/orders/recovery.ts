import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { hasEnded, type OrderState } from '../../domain/lifecycle/index.js';
import type { EvidenceRepository } from '../../infra/db/index.js';

const { EventType, ResetReapplyExcludeType, WorkflowExecutionStatus } = proto.temporal.api.enums.v1;
const { ResetWorkflowExecutionRequest } = proto.temporal.api.workflowservice.v1;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

/**
 * Ops' way back for an order whose run no longer goes on: a run ended by someone's `temporal workflow reset` or
 * terminate (the reset's copy is refused, docs/security.md), or wedged by a message under a key id the workers do not
 * hold. The API resets the chain's latest admitted run to its last completed workflow task — where the records stand,
 * so nothing recorded is taken back — without re-applying the signals and updates that came after it, and records who
 * did it and why. The run the reset makes is admitted in the recovered run's place by the workers, once its own history
 * says it is that reset's copy (activities/order/run-guard.ts).
 */
export interface RecoveryDeps {
  temporal: Client;
  repository: Pick<EvidenceRepository, 'latestAdmittedRun' | 'orderState' | 'requestRecovery' | 'adoptRecoveredRun'>;
}

export interface RecoveryResult {
  /** The run that was reset: the chain's latest admitted run. */
  recoveredRunId: string;
  /** The run the reset made, which goes on in its place. */
  runId: string;
  /** The event of the recovered run it was reset to (its last completed workflow task). */
  resetToEventId: number;
}

export type RecoveryRefusalCode = 'NOT_RECOVERABLE' | 'NOT_WEDGED';

/** The order cannot be recovered: nothing to recover, or nothing wrong with its run. Nothing was changed. */
export class RecoveryRefused extends Error {
  override readonly name = 'RecoveryRefused';
  constructor(
    readonly code: RecoveryRefusalCode,
    message: string,
  ) {
    super(message);
  }
}

export async function recoverOrder(
  deps: RecoveryDeps,
  workflowId: string,
  by: { actor: string; reason: string },
): Promise<RecoveryResult> {
  const latest = await deps.repository.latestAdmittedRun(workflowId);
  if (!latest) {
    throw new RecoveryRefused(
      'NOT_RECOVERABLE',
      'no run of the order was ever admitted by the workers: there is nothing to recover (a worker for its environment starts it)',
    );
  }
  const state = await deps.repository.orderState(workflowId);
  if (state !== null && hasEnded(state as OrderState))
    throw new RecoveryRefused('NOT_RECOVERABLE', `the order has ended (${state}): there is nothing to recover`);
  const run = { workflowId, runId: latest.runId };
  const resetTo = await lastCompletedTask(deps.temporal, run);
  await deps.repository.requestRecovery({ ...run, fromRunId: run.runId, resetEventId: resetTo, ...by });
  // fromObject takes the event id as a number (the message's field is an int64).
  const reset = ResetWorkflowExecutionRequest.fromObject({
    namespace: deps.temporal.options.namespace,
    workflowExecution: run,
    reason: `recovered by ${by.actor} through the order API: ${by.reason}`,
    workflowTaskFinishEventId: resetTo,
    requestId: randomUUID(),
    resetReapplyExcludeTypes: [
      ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_SIGNAL,
      ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_UPDATE,
    ],
  });
  const { runId } = (await deps.temporal.workflowService.resetWorkflowExecution(
    reset,
  )) as proto.temporal.api.workflowservice.v1.IResetWorkflowExecutionResponse;
  // The workers adopt the new run as soon as it acts; adopting it here too covers a run that waits for a vote.
  await deps.repository.adoptRecoveredRun({ workflowId, fromRunId: run.runId, toRunId: runId! });
  return { recoveredRunId: run.runId, runId: runId!, resetToEventId: resetTo };
}

/**
 * The run's last completed workflow task, the point to go back to; refused when the run is running and its last
 * workflow task completed (nothing is wrong with it) or it never completed one.
 */
async function lastCompletedTask(temporal: Client, run: { workflowId: string; runId: string }): Promise<number> {
  const { workflowExecutionInfo } = await temporal.workflowService.describeWorkflowExecution({
    namespace: temporal.options.namespace,
    execution: run,
  });
  const running = workflowExecutionInfo?.status === WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  let completed: HistoryEvent | undefined;
  let lastTask: HistoryEvent | undefined;
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await temporal.workflowService.getWorkflowExecutionHistoryReverse({
      namespace: temporal.options.namespace,
      execution: run,
      maximumPageSize: 200,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const event of page.history?.events ?? []) {
      if (!lastTask && WORKFLOW_TASK_ENDS.has(event.eventType!)) lastTask = event;
      if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        completed = event;
        break;
      }
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (!completed && nextPageToken);
  if (running && lastTask === completed) {
    throw new RecoveryRefused(
      'NOT_WEDGED',
      'the order\u2019s run is running and its last workflow task completed: there is nothing to recover',
    );
  }
  if (!completed)
    throw new RecoveryRefused('NOT_RECOVERABLE', 'the order\u2019s run never completed a workflow task to go back to');
  return Number(completed.eventId);
}

const WORKFLOW_TASK_ENDS: ReadonlySet<number> = new Set([
  EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
]);
