import { patched, type CancellationScope } from '@temporalio/workflow';
import type { ApprovalPolicy } from '../../domain/approval/index.js';
import type { CancelInput, ResolveBuyInput } from './messages.js';
import type { OrderRecorder } from './recorder.js';
import type { OrderWorkflowInput, OrderWorkflowOptions } from './types.js';

/** What every step of one run of the order works with. */
export interface OrderRun {
  recorder: OrderRecorder;
  options: Required<OrderWorkflowOptions>;
  changes: RunChanges;
  /** What people asked for and the flow has not yet acted on (set by the update handlers). */
  inbox: {
    cancel?: CancelInput;
    resolution?: ResolveBuyInput;
    /** Set while a 'created' resolution's product is read at the provider: another resolution waits its turn. */
    checkingResolution?: boolean;
    /** The scope of everything before the buy: a cancel cancels it. */
    beforeBuy?: CancellationScope;
  };
}

/**
 * The changes to what the order does on replay that this run began with (docs/order-workflow.md, "Changing the
 * workflow"): each is a `patched()` asked once as the run starts, so a run that began before a change keeps the old
 * path to its end.
 */
export interface RunChanges {
  /**
   * An uncertain buy sets the numbers reserved for its record aside instead of giving them back
   * (`OrderRecorder.skipReserved`): a run of it that was lost may have written them.
   */
  skipsNumbersOfUncertainBuy: boolean;
  /**
   * A 'created' resolution of an uncertain buy is accepted only once the workers have read its product at the
   * provider and found it named after this order (`checkResolvedProduct`).
   */
  checksResolvedProduct: boolean;
  /**
   * An order that ends writes its records before it waits for its last ticket-system notifications, which the activity
   * builds from the records (before, it waited for them first). Asked only of an order with a callback URL: one
   * without waits for no notification, so its end is the same either way, and its history needs no marker.
   */
  writesRecordsBeforeLastNotifications: boolean;
  /**
   * A round short of approvers (fewer could vote than its tier needs) says so on the order's timeline and to its
   * ticket system, and reads the directory again on the policy's `directoryRecheck` until enough could vote (before,
   * it read it at its reminders only). Asked only when the run first finds a round short, and its first answer kept
   * for the rest of the run: an order that never has such a round carries no marker (see docs/order-workflow.md,
   * "Changing the workflow").
   */
  flagsRoundsShortOfApprovers(): boolean;
  /**
   * The approval checks the team's budget (budget-gate.ts): a price over it opens its round at the policy's
   * `overBudget` tier (or is refused), and each approval commits the price under the team's lock. Asked only of an
   * order whose policy gives a team a budget, when it is first needed: orders of other policies carry no marker.
   */
  checksTeamBudgets(): boolean;
}

export function changesOfThisRun(input: Pick<OrderWorkflowInput, 'request'>): RunChanges {
  let flagsShortRounds: boolean | undefined;
  let checksBudgets: boolean | undefined;
  return {
    skipsNumbersOfUncertainBuy: patched('skip-numbers-of-uncertain-buy'),
    checksResolvedProduct: patched('check-resolved-product'),
    writesRecordsBeforeLastNotifications:
      input.request.callbackUrl === undefined || patched('records-before-last-notifications'),
    // The SDK does not keep a patch's "no" given on replay: asked again after the replay, it could say yes.
    flagsRoundsShortOfApprovers: () => (flagsShortRounds ??= patched('flag-rounds-short-of-approvers')),
    checksTeamBudgets: () => (checksBudgets ??= patched('check-team-budgets')),
  };
}

/**
 * A run whose approval policy is known: the workers' policy for the order's environment, read when the order began
 * (its first step) and carried across continue-as-new. Everything from the gate on decides by it.
 */
export interface GovernedRun extends OrderRun {
  policy: ApprovalPolicy;
}

/** The end of an order before buying; `undefined` means the order may go on to buy. */
export type Ending =
  { state: 'REJECTED' | 'EXPIRED' | 'CANCELLED' | 'FAILED'; actor: string; reason: string } | undefined;

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
