import type { CancellationScope } from '@temporalio/workflow';
import type { ApprovalPolicy } from '../../domain/approval/index.js';
import type { CancelInput, ResolveBuyInput } from './messages.js';
import type { OrderRecorder } from './recorder.js';
import type { OrderWorkflowOptions } from './types.js';

/** What every step of one run of the order works with. */
export interface OrderRun {
  recorder: OrderRecorder;
  /**
   * The workers' policy for the order's environment, read once when the order began: in runs of the one read, with
   * its first quote (until then unset, and `recorder.progress.governing` too).
   */
  policy: ApprovalPolicy;
  options: Required<OrderWorkflowOptions>;
  /**
   * Whether the buy writes the journal itself (`BUY_WRITES_AHEAD_PATCH`), decided once when the run starts: a patch
   * asked at the buy could be answered differently on replay when a local activity ends near a workflow task's end.
   */
  buyWritesAhead: boolean;
  /** Whether the policy, the lookup and the first validation are one read (`ONE_READ_PATCH`), decided when the run starts. */
  oneReadBeforeGate: boolean;
  /** Whether the buy runs in its workflow task (`BUY_IN_WORKFLOW_TASK_PATCH`), decided when the run starts. */
  buyInWorkflowTask: boolean;
  /** What people asked for and the flow has not yet acted on (set by the update handlers). */
  inbox: {
    cancel?: CancelInput;
    resolution?: ResolveBuyInput;
    /** The scope of everything before the buy: a cancel cancels it. */
    beforeBuy?: CancellationScope;
  };
}

/** The end of an order before buying; `undefined` means the order may go on to buy. */
export type Ending = { state: 'REJECTED' | 'EXPIRED' | 'CANCELLED' | 'FAILED'; actor: string; reason: string } | undefined;

const DEFAULT_OPTIONS: Required<OrderWorkflowOptions> = {
  buyUncertainReminderMs: 4 * 60 * 60 * 1000,
  maxBuyAttempts: 6,
  continueAsNewAfterEvents: 2_000,
};

export function withDefaults(options: OrderWorkflowOptions | undefined): Required<OrderWorkflowOptions> {
  return {
    buyUncertainReminderMs: options?.buyUncertainReminderMs ?? DEFAULT_OPTIONS.buyUncertainReminderMs,
    maxBuyAttempts: options?.maxBuyAttempts ?? DEFAULT_OPTIONS.maxBuyAttempts,
    continueAsNewAfterEvents: options?.continueAsNewAfterEvents ?? DEFAULT_OPTIONS.continueAsNewAfterEvents,
  };
}
