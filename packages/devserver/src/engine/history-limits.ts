/**
 * The history count and size limits, enforced as the real server enforces them when it saves a change to a
 * run: a change (a call, a timer) that leaves a running run over `historyCountError` events or
 * `historySizeError` bytes is discarded, and the run is terminated instead — reason "Workflow history count
 * exceeds limit." (or "size"), identity "history-service", a workflow task in a worker's hands failed first
 * (FORCE_CLOSE_COMMAND) — and the call that made the change is answered INVALID_ARGUMENT with that reason.
 * Over a warn limit the server logs a warning, once per run.
 *
 * A change is everything done to the runs touched since the last check: the server checks at the end of every
 * call and after every timer, and keeps what a run looked like after the last change that passed, to go back to.
 */
import { invalidArgument } from '../errors.js';
import type { RpcError } from '../errors.js';
import type { BufferedEvent, Execution, UpdateState, WorkflowTaskState } from '../execution.js';
import type { PackedSearchAttributes } from '../packed-message.js';
import type { Memo } from '../proto.js';
import { isRunning } from './context.js';
import type { EngineContext } from './context.js';
import { HISTORY_SERVICE_IDENTITY, terminate } from './executions.js';
import { historySizeBytes, rewindHistorySize } from './history-size.js';
import { forgetSignalsSince, signalCount } from './request-ids.js';

interface Checkpoint {
  historyLength: number;
  historyBytes: number;
  buffered: BufferedEvent[];
  memo?: Memo | null;
  searchAttributes: PackedSearchAttributes;
  signalRequestCount: number;
  workflowTask?: WorkflowTaskState;
  updates: Map<string, Pick<UpdateState, 'stage' | 'outcome' | 'acceptedEventId'>>;
}

export class HistoryLimits {
  private readonly checkpoints = new WeakMap<Execution, Checkpoint>();
  private readonly warned = new WeakSet<Execution>();

  constructor(private readonly ctx: EngineContext) {}

  /** Checks the runs changed since the last call; returns the refusal for the caller when one was terminated. */
  settle(): RpcError | undefined {
    let refusal: RpcError | undefined;
    for (const execution of [...this.ctx.changedRuns]) {
      this.ctx.changedRuns.delete(execution);
      const refused = this.check(execution);
      refusal ??= refused;
    }
    return refusal;
  }

  private check(execution: Execution): RpcError | undefined {
    if (!isRunning(execution)) {
      this.checkpoints.delete(execution);
      return undefined;
    }
    const { limits } = this.ctx.options;
    const count = execution.history.length;
    const bytes = historySizeBytes(execution);
    const reason =
      bytes > limits.historySizeError
        ? 'Workflow history size exceeds limit.'
        : count > limits.historyCountError
          ? 'Workflow history count exceeds limit.'
          : undefined;
    if (!reason) {
      this.warnOnce(execution, count, bytes);
      this.checkpoints.set(execution, this.checkpoint(execution, bytes));
      return undefined;
    }
    this.ctx.log(
      `${execution.workflowId}/${execution.runId} terminated: ${reason} (${count} events, ${bytes} bytes)`,
      'warn',
    );
    // a run first seen over the limit (just started, or loaded from a durable store) has nothing to go back to
    const checkpoint = this.checkpoints.get(execution);
    if (checkpoint) this.restore(execution, checkpoint);
    terminate(this.ctx, execution, reason, HISTORY_SERVICE_IDENTITY);
    return invalidArgument(reason);
  }

  private warnOnce(execution: Execution, count: number, bytes: number): void {
    const { limits } = this.ctx.options;
    if (this.warned.has(execution) || (count <= limits.historyCountWarn && bytes <= limits.historySizeWarn)) return;
    this.warned.add(execution);
    this.ctx.log(
      `${execution.workflowId}/${execution.runId}: history of ${count} events, ${bytes} bytes is over the warn limit (${limits.historyCountWarn} events, ${limits.historySizeWarn} bytes); the run is terminated past ${limits.historyCountError} events or ${limits.historySizeError} bytes`,
      'warn',
    );
  }

  private checkpoint(execution: Execution, historyBytes: number): Checkpoint {
    const task = execution.workflowTask;
    return {
      historyLength: execution.history.length,
      historyBytes,
      buffered: [...execution.buffered],
      memo: execution.memo,
      searchAttributes: execution.searchAttributes,
      signalRequestCount: signalCount(execution),
      workflowTask: task && { ...task, transientEvents: task.transientEvents && [...task.transientEvents] },
      // a completed update stays as it is: only the others can change
      updates: new Map(
        [...execution.updates]
          .filter(([, update]) => update.stage !== 'completed')
          .map(([id, { stage, outcome, acceptedEventId }]) => [id, { stage, outcome, acceptedEventId }]),
      ),
    };
  }

  /** The run as the last change that passed left it (what is dropped here, termination drops anyway: timers, activities). */
  private restore(execution: Execution, checkpoint: Checkpoint): void {
    execution.history.truncate(checkpoint.historyLength);
    rewindHistorySize(execution, checkpoint.historyLength, checkpoint.historyBytes);
    execution.buffered = checkpoint.buffered;
    execution.memo = checkpoint.memo;
    execution.searchAttributes = checkpoint.searchAttributes;
    forgetSignalsSince(execution, checkpoint.signalRequestCount);
    execution.workflowTask = checkpoint.workflowTask;
    // in place: callers waiting on an update hold these objects; one neither kept nor completed was admitted since
    for (const [id, update] of execution.updates) {
      const before = checkpoint.updates.get(id);
      if (before) Object.assign(update, before);
      else if (update.stage !== 'completed') execution.updates.delete(id);
    }
  }
}
