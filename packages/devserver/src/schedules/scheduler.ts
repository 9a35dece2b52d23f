/**
 * One schedule's state machine, as the real server's scheduler runs it: on every wake-up (its next action time
 * on the server clock, a patch or an update, a started workflow closing) it takes the action times that passed
 * since it last looked (those older than the catchup window are only counted as missed), applies the patch or
 * update, feeds backfills, then starts what the overlap policy allows from its buffer, and sleeps until the next
 * action time. Paused, or out of remaining actions, it takes no scheduled action and the time passes unused;
 * triggers and backfills still run. A schedule with nothing left to do goes away after its retention (7 days).
 */
import type { TimerId } from '../clock.js';
import type { EngineContext } from '../engine/context.js';
import { historyKey, isRunning } from '../engine/context.js';
import { RpcError } from '../errors.js';
import { durationToMs, ExecutionStatus, msToDuration, timestampToMs } from '../proto.js';
import type { Failure, Memo, Payloads, SearchAttributes } from '../proto.js';
import { decideBuffer, OverlapPolicy } from './buffer.js';
import type { BufferedStart } from './buffer.js';
import { CompiledSpec, SpecSearchLimitError } from './spec.js';
import type { ActionTime } from './spec.js';
import { chainOutcome, latestRunOf, schedulerIdentity, startScheduledWorkflow, stopRunning } from './workflows.js';
import type { ChainOutcome, WorkflowRef } from './workflows.js';

export type Schedule = import('@temporalio/proto').temporal.api.schedule.v1.ISchedule;
export type SchedulePatch = import('@temporalio/proto').temporal.api.schedule.v1.ISchedulePatch;

const DAY_MS = 86_400_000;
const DEFAULT_CATCHUP_WINDOW_MS = 365 * DAY_MS;
const MIN_CATCHUP_WINDOW_MS = 10_000;
/** How long a schedule with nothing left to do is kept after its last event. */
const RETENTION_MS = 7 * DAY_MS;
const RECENT_ACTIONS_KEPT = 10;
const MAX_BUFFER = 1000;
const BACKFILL_ACTIONS_PER_WAKE = 10;
/** An ALLOW_ALL backfill larger than one wake-up's share goes on a second later. */
const BACKFILL_PAUSE_MS = 1000;
/** A watch on a running workflow is renewed this often (real time), so no wait is held for ever. */
const WATCH_RENEW_MS = 3_600_000;
/** ListScheduleMatchingTimes answers at most this many times, as the real server does. */
const MAX_MATCHING_TIMES = 1000;

export interface RecentAction {
  /** The action time (with jitter). */
  scheduleTime: number;
  /** When the workflow started. */
  actualTime: number;
  workflowId: string;
  runId: string;
  status: number;
}

export interface Backfill {
  /** Exclusive: action times after it. */
  start: number;
  end: number;
  overlapPolicy: number;
}

/** The schedule's pause and action limit (the protobuf ScheduleState), with its count as a number. */
export interface ScheduleControls {
  notes: string;
  paused: boolean;
  limitedActions: boolean;
  remainingActions: number;
}

/** Everything a schedule keeps; a durable store writes it (./record.ts). Times are server epoch ms. */
export interface ScheduleData {
  namespace: string;
  namespaceId: string;
  scheduleId: string;
  /** The create request's id: the same create repeated finds this schedule. */
  requestId: string;
  /** Spec (canonical), action and policies as given; its state part is `controls`. */
  schedule: Schedule;
  controls: ScheduleControls;
  memo?: Memo | null;
  searchAttributes?: SearchAttributes | null;
  conflictToken: number;
  createTime: number;
  updateTime?: number;
  /** Action times up to here are taken (or missed). */
  lastProcessedTime: number;
  actionCount: number;
  missedCatchupWindow: number;
  overlapSkipped: number;
  bufferDropped: number;
  /** Started workflows (ALLOW_ALL ones excepted) whose chain has not closed. */
  runningWorkflows: WorkflowRef[];
  recentActions: RecentAction[];
  bufferedStarts: BufferedStart[];
  backfills: Backfill[];
  /** From the last tracked workflow that completed (or failed), for the next start. */
  lastCompletionResult?: Payloads | null;
  continuedFailure?: Failure | null;
}

export interface ScheduleUpdate {
  schedule: Schedule;
  controls: ScheduleControls;
  /** Replaces the schedule's search attributes when given. */
  searchAttributes?: SearchAttributes | null;
}

/** What a scheduler needs from the server around it. */
export interface SchedulerHost {
  ctx: EngineContext;
  /** The state changed: a durable store writes it with the next commit. */
  changed(scheduler: Scheduler): void;
  /** Nothing left to do and the retention passed: the schedule goes away. */
  expired(scheduler: Scheduler): void;
}

export class Scheduler {
  private spec: CompiledSpec | undefined;
  private timer: TimerId | undefined;
  /** Running workflows watched for their close, by run id: how to stop watching. */
  private readonly watches = new Map<string, () => void>();
  private stopped = false;
  private searchLimitLogged = false;

  constructor(
    readonly data: ScheduleData,
    private readonly host: SchedulerHost,
  ) {
    this.spec = this.compile();
  }

  private get ctx(): EngineContext {
    return this.host.ctx;
  }

  /** One pass of the state machine, with a patch or an update arriving now, then sleep until the next action time. */
  wake(signal: { patch?: SchedulePatch; update?: ScheduleUpdate } = {}): void {
    if (this.stopped) return;
    const data = this.data;
    const now = Math.max(this.ctx.clock.now(), data.lastProcessedTime);
    let pass = this.processTimeRange(
      data.lastProcessedTime,
      now,
      OverlapPolicy.SCHEDULE_OVERLAP_POLICY_UNSPECIFIED,
      false,
    );
    data.lastProcessedTime = pass.lastAction;
    if (signal.patch) this.applyPatch(signal.patch);
    if (signal.update) {
      this.applyUpdate(signal.update);
      pass = this.processTimeRange(
        data.lastProcessedTime,
        now,
        OverlapPolicy.SCHEDULE_OVERLAP_POLICY_UNSPECIFIED,
        false,
      );
    }
    this.processBackfills();
    while (this.processBuffer());
    this.watchRunning();
    this.host.changed(this);
    const retentionEnd = this.retentionEnd(pass.next);
    if (retentionEnd !== undefined && retentionEnd <= this.ctx.clock.now()) {
      this.ctx.log(`schedule ${data.scheduleId} has had nothing to do for ${RETENTION_MS / DAY_MS} days: removed`);
      this.host.expired(this);
      return;
    }
    this.sleep(pass.next, retentionEnd);
  }

  /** Stops its timer and watches (deleted, or the server stops). */
  stop(): void {
    this.stopped = true;
    this.ctx.clock.cancel(this.timer);
    for (const unwatch of this.watches.values()) unwatch();
    this.watches.clear();
  }

  /** The policies with their defaults, as describe shows them. */
  policies(): object {
    return {
      ...this.data.schedule.policies,
      overlapPolicy: this.resolvePolicy(0),
      catchupWindow: msToDuration(this.catchupWindowMs()),
    };
  }

  /** The next `count` action times from where it stands (fewer when its remaining actions are fewer). */
  futureActionTimes(count: number): number[] {
    const controls = this.data.controls;
    const limit = controls.limitedActions ? Math.min(controls.remainingActions, count) : count;
    const times: number[] = [];
    for (
      let time = this.nextTime(this.data.lastProcessedTime);
      time && times.length < limit;
      time = this.nextTime(time.actual)
    )
      if (!(this.updateTime() > time.actual)) times.push(time.actual);
    return times;
  }

  /** ListScheduleMatchingTimes: the action times in (start, end]. Throws SpecSearchLimitError. */
  matchingTimes(startMs: number, endMs: number): number[] {
    return this.spec ? this.spec.timesBetween(startMs, endMs, MAX_MATCHING_TIMES) : [];
  }

  /** Running workflows, as describe shows them: only those whose chain is still running. */
  runningWorkflows(): WorkflowRef[] {
    return this.data.runningWorkflows.filter((ref) => {
      const run = latestRunOf(this.ctx, ref);
      return run !== undefined && isRunning(run);
    });
  }

  // --- the pass

  private compile(): CompiledSpec | undefined {
    try {
      return new CompiledSpec(this.data.schedule.spec ?? {}, `${this.data.namespaceId}-${this.data.scheduleId}`);
    } catch (error) {
      // the spec was checked when given; a zone that no longer loads leaves the schedule without actions
      this.ctx.log(`schedule ${this.data.scheduleId}: invalid spec: ${(error as Error).message}`, 'warn');
      return undefined;
    }
  }

  private nextTime(afterMs: number): ActionTime | undefined {
    try {
      return this.spec?.next(afterMs);
    } catch (error) {
      if (!(error instanceof SpecSearchLimitError)) throw error;
      if (!this.searchLimitLogged)
        this.ctx.log(`schedule ${this.data.scheduleId}: ${error.message} It takes no further action.`, 'warn');
      this.searchLimitLogged = true;
      return undefined;
    }
  }

  private catchupWindowMs(): number {
    const window = this.data.schedule.policies?.catchupWindow;
    return window ? Math.max(durationToMs(window), MIN_CATCHUP_WINDOW_MS) : DEFAULT_CATCHUP_WINDOW_MS;
  }

  /** A start's policy: its own, else the schedule's, else SKIP. */
  private resolvePolicy(policy: number): number {
    return policy || this.data.schedule.policies?.overlapPolicy || OverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP;
  }

  private updateTime(): number {
    return this.data.updateTime ?? 0;
  }

  /** Whether an action may be taken: manual ones always; scheduled ones unless paused or out of remaining actions. */
  private canAct(manual: boolean, consume = false): boolean {
    if (manual) return true;
    const controls = this.data.controls;
    if (controls.paused) return false;
    if (!controls.limitedActions) return true;
    if (controls.remainingActions <= 0) return false;
    if (consume) {
      controls.remainingActions--;
      this.data.conflictToken++;
    }
    return true;
  }

  /**
   * Buffers the action times in (start, end]. Returns the first action time after the last one looked at, and
   * how far the times were processed. `budget` caps how many are buffered (backfills).
   */
  private processTimeRange(
    start: number,
    end: number,
    overlapPolicy: number,
    manual: boolean,
    budget?: { left: number },
  ): { next?: number; lastAction: number } {
    if (!this.spec) return { lastAction: end };
    // paused or out of actions: the time passes unused (and is not counted as missed)
    if (!this.canAct(manual)) return { next: this.nextTime(end)?.actual, lastAction: end };
    let lastAction = start;
    let time = this.nextTime(start);
    for (; time && time.actual <= end; time = this.nextTime(time.actual)) {
      // a time before the last update was the old spec's
      if (!manual && this.updateTime() > time.actual) continue;
      lastAction = time.actual;
      if (!manual && end - time.actual > this.catchupWindowMs()) {
        this.data.missedCatchupWindow++;
        continue;
      }
      this.buffer({ nominal: time.nominal, actual: time.actual, overlapPolicy, manual });
      if (budget && --budget.left <= 0) break;
    }
    return { next: time?.actual, lastAction };
  }

  private buffer(start: BufferedStart): void {
    if (this.data.bufferedStarts.length >= MAX_BUFFER) {
      this.ctx.log(`schedule ${this.data.scheduleId}: buffer full (${MAX_BUFFER} starts), a start is dropped`, 'warn');
      this.data.bufferDropped++;
      return;
    }
    this.data.bufferedStarts.push(start);
  }

  private applyPatch(patch: SchedulePatch): void {
    const data = this.data;
    const trigger = patch.triggerImmediately;
    if (trigger) {
      const at = timestampToMs(trigger.scheduledTime) || this.ctx.clock.now();
      this.buffer({ nominal: at, actual: at, overlapPolicy: trigger.overlapPolicy ?? 0, manual: true });
    }
    for (const backfill of patch.backfillRequest ?? []) {
      if (data.backfills.length >= MAX_BUFFER) {
        data.bufferDropped++;
        continue;
      }
      // the start time is inclusive: action times after a millisecond before it
      data.backfills.push({
        start: timestampToMs(backfill.startTime) - 1,
        end: timestampToMs(backfill.endTime),
        overlapPolicy: backfill.overlapPolicy ?? 0,
      });
    }
    for (const [notes, paused] of [
      [patch.pause, true],
      [patch.unpause, false],
    ] as const) {
      if (!notes) continue;
      Object.assign(data.controls, { paused, notes });
      data.conflictToken++;
    }
  }

  private applyUpdate(update: ScheduleUpdate): void {
    this.data.schedule = update.schedule;
    this.data.controls = update.controls;
    this.spec = this.compile();
    if (update.searchAttributes) this.data.searchAttributes = update.searchAttributes;
    this.data.updateTime = this.ctx.clock.now();
    this.data.conflictToken++;
  }

  private processBackfills(): void {
    const budget = { left: BACKFILL_ACTIONS_PER_WAKE };
    const backfills = this.data.backfills;
    // backfills get at most half the buffer
    while (backfills.length && budget.left > 0 && this.data.bufferedStarts.length < MAX_BUFFER / 2) {
      const backfill = backfills[0]!;
      const { next } = this.processTimeRange(backfill.start, backfill.end, backfill.overlapPolicy, true, budget);
      if (next === undefined || next > backfill.end) backfills.shift();
      else backfill.start = next;
    }
  }

  private hasMoreAllowAllBackfills(): boolean {
    const first = this.data.backfills[0];
    return (
      first !== undefined && this.resolvePolicy(first.overlapPolicy) === OverlapPolicy.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL
    );
  }

  /** Starts what the overlap policies allow; true when it should look at the buffer again right away. */
  private processBuffer(): boolean {
    const data = this.data;
    this.refreshRunning();
    if (!data.schedule.action?.startWorkflow || !data.bufferedStarts.length) {
      data.bufferedStarts = [];
      return false;
    }
    const decision = decideBuffer(data.bufferedStarts, data.runningWorkflows.length > 0, (policy) =>
      this.resolvePolicy(policy),
    );
    data.bufferedStarts = decision.buffer;
    data.overlapSkipped += decision.skipped;
    let again = false;
    const starts = decision.nonOverlapping ? [...decision.overlapping, decision.nonOverlapping] : decision.overlapping;
    for (const start of starts)
      if (!this.canAct(start.manual, true) || !this.start(start, start === decision.nonOverlapping)) again = true;
    const identity = schedulerIdentity(data.namespace, data.scheduleId);
    if (decision.terminateRunning || decision.cancelRunning)
      for (const ref of data.runningWorkflows)
        stopRunning(this.ctx, ref, decision.terminateRunning ? 'terminate' : 'cancel', identity);
    // a terminated run is closed at once: what waited for it can start now (a cancelled one closes later, and wakes us)
    return again || decision.terminateRunning;
  }

  /** Starts one buffered start's workflow; false when the start was refused. */
  private start(start: BufferedStart, tracked: boolean): boolean {
    const data = this.data;
    // ALLOW_ALL starts neither take nor give a previous result
    const independent = start.overlapPolicy === OverlapPolicy.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL;
    try {
      const started = startScheduledWorkflow(this.ctx, {
        namespace: data.namespace,
        scheduleId: data.scheduleId,
        workflow: data.schedule.action!.startWorkflow!,
        nominal: start.nominal,
        manual: start.manual,
        lastCompletionResult: independent ? undefined : data.lastCompletionResult,
        continuedFailure: independent ? undefined : data.continuedFailure,
      });
      data.actionCount++;
      const action = {
        scheduleTime: start.actual,
        actualTime: started.startedAt,
        workflowId: started.workflowId,
        runId: started.runId,
        status: ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
      };
      data.recentActions = [...data.recentActions, action].slice(-RECENT_ACTIONS_KEPT);
      if (tracked) data.runningWorkflows.push({ workflowId: started.workflowId, runId: started.runId });
      return true;
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      this.ctx.log(`schedule ${data.scheduleId}: could not start its workflow: ${error.message}`);
      return false;
    }
  }

  /** Takes the chains that closed out of the running workflows: their status, pause on failure, the result for the next start. */
  private refreshRunning(): void {
    this.data.runningWorkflows = this.data.runningWorkflows.filter((ref) => {
      const run = latestRunOf(this.ctx, ref);
      if (run && isRunning(run)) return true;
      this.chainClosed(ref, chainOutcome(run));
      return false;
    });
  }

  private chainClosed(ref: WorkflowRef, outcome: ChainOutcome): void {
    const data = this.data;
    const recent = data.recentActions.find((action) => action.workflowId === ref.workflowId);
    if (recent) recent.status = outcome.status;
    const failed =
      outcome.status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED ||
      outcome.status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT;
    if (data.schedule.policies?.pauseOnFailure && failed && !data.controls.paused) {
      data.controls.paused = true;
      data.controls.notes =
        outcome.status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED
          ? `paused due to workflow failure: ${ref.workflowId}: ${outcome.failure?.message ?? ''}`
          : `paused due to workflow timeout: ${ref.workflowId}`;
      data.conflictToken++;
    }
    if (outcome.result) {
      data.lastCompletionResult = outcome.result;
      data.continuedFailure = undefined;
    } else if (outcome.failure) {
      data.continuedFailure = outcome.failure;
    }
  }

  /** Watches the current run of every running workflow, so that its close wakes the schedule. */
  private watchRunning(): void {
    const wanted = new Set<string>();
    for (const ref of this.data.runningWorkflows) {
      const run = latestRunOf(this.ctx, ref);
      if (!run || !isRunning(run)) continue;
      wanted.add(run.runId);
      if (!this.watches.has(run.runId)) this.watch(run.runId, () => !isRunning(run));
    }
    for (const [runId, unwatch] of this.watches)
      if (!wanted.has(runId)) {
        unwatch();
        this.watches.delete(runId);
      }
  }

  private watch(runId: string, closed: () => boolean): void {
    let cancel: () => void = () => {};
    this.watches.set(runId, () => cancel());
    void this.ctx.watchers
      .waitUntil(historyKey(runId), closed, WATCH_RENEW_MS, (listener) => (cancel = listener))
      .then(() => {
        if (this.stopped || !this.watches.has(runId)) return;
        this.watches.delete(runId);
        if (closed()) this.wake();
        else this.watchRunning();
      });
  }

  private sleep(next: number | undefined, retentionEnd: number | undefined): void {
    this.ctx.clock.cancel(this.timer);
    this.timer = undefined;
    let wakeAt = next;
    if (this.hasMoreAllowAllBackfills()) wakeAt = this.ctx.clock.now() + BACKFILL_PAUSE_MS;
    // paused or out of actions: only a patch or an update wakes it
    else if (!this.canAct(false)) wakeAt = undefined;
    wakeAt = retentionEnd ?? wakeAt;
    if (wakeAt !== undefined) this.timer = this.ctx.clock.at(wakeAt, () => this.wake());
  }

  /** When a schedule with nothing left to do goes away: its last event plus the retention. */
  private retentionEnd(next: number | undefined): number | undefined {
    const data = this.data;
    if (data.controls.paused || (next !== undefined && this.canAct(false)) || this.hasMoreAllowAllBackfills())
      return undefined;
    const lastAction = data.recentActions.at(-1)?.actualTime ?? 0;
    return Math.max(lastAction, data.createTime, data.updateTime ?? 0) + RETENTION_MS;
  }
}
