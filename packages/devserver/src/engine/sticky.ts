/**
 * Sticky execution, the run's side: a worker that completes a workflow task names its own sticky queue (it
 * keeps the run cached), and the run's next task is offered there with only the events that worker has not
 * seen. Stickiness ends when a task fails or times out, when a task is taken from the normal queue, and on
 * ResetStickyTaskQueue; a sticky queue nobody has polled for a while counts as gone, as in the real matching.
 */
import type proto from '@temporalio/proto';
import type { Execution, StickyQueue } from '../execution.js';
import { durationToMs, TaskQueueKind } from '../proto.js';
import type { EngineContext } from './context.js';

type StickyAttributes = proto.temporal.api.taskqueue.v1.IStickyExecutionAttributes;

/** A sticky queue with no poll for this long has lost its worker: tasks skip it (the real server's window). */
export const STICKY_POLLER_WINDOW_MS = 10_000;

/** What a workflow task completion says about stickiness: its sticky queue, or none (the worker has no cache). */
export function rememberSticky(
  ctx: EngineContext,
  execution: Execution,
  attributes: StickyAttributes | null | undefined,
): void {
  const name = attributes?.workerTaskQueue?.name;
  execution.sticky =
    name && ctx.options.stickyExecution
      ? { name, scheduleToStartMs: durationToMs(attributes?.scheduleToStartTimeout) }
      : undefined;
}

/** Ends stickiness; returns whether the run was sticky. */
export function forgetSticky(execution: Execution): boolean {
  const was = execution.sticky !== undefined;
  execution.sticky = undefined;
  return was;
}

/** The run's sticky queue while its worker still polls it; undefined when the run is not sticky or the worker is gone. */
export function liveStickyQueue(ctx: EngineContext, execution: Execution): StickyQueue | undefined {
  const sticky = execution.sticky;
  return sticky && ctx.matching.hasRecentPoller('sticky', execution.namespace, sticky.name, STICKY_POLLER_WINDOW_MS)
    ? sticky
    : undefined;
}

/** The queue a new workflow task is scheduled on, as its WorkflowTaskScheduled event names it. */
export function currentTaskQueue(execution: Execution): object {
  return execution.sticky
    ? { name: execution.sticky.name, kind: TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: execution.taskQueue }
    : { name: execution.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL };
}
