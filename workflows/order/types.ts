import type { ProductRecord, QuoteRecord } from './activity-types.js';
import type { OrderState } from '../../domain/lifecycle/index.js';
import type { OrderRequest } from '../../schemas/index.js';
import type { OrderProgress } from './progress.js';
import type { CarriedSeal } from './carried-seal.js';

export interface OrderWorkflowInput {
  /**
   * The checked request; its secrets reach history only through the encrypting payload codec.
   * `requestedBy` is the authenticated requester (or the one a ticket system named, matched to the directory).
   */
  request: OrderRequest;
  /** Who submitted it, as the HTTP API authenticated them. The approval policy is never an input: workers own it. */
  submittedBy?: string;
  options?: OrderWorkflowOptions;
  /**
   * Set only by the order itself when a long wait continues as a new run: everything the order knew, so the new
   * run resumes the wait where the last one left it (continue-as-new.ts).
   */
  carried?: OrderProgress;
  /** The run that continued sealed `carried` (carried-seal.ts): the next run believes it only with a valid seal. */
  seal?: CarriedSeal;
}

export interface OrderIdentity {
  workflowId: string;
  /** The first run of the order (the reads' context names it; the journal's activity reads its run from its context). */
  runId: string;
}

export interface OrderWorkflowOptions {
  /** How often ops are reminded of an order in BUY_UNCERTAIN. */
  buyUncertainReminderMs?: number;
  /** Buy attempts that provably did not take effect (429, refused connection) before the order fails. */
  maxBuyAttempts?: number;
  /**
   * A long wait (approval, an uncertain buy) continues as a new run once the history has this many events, or
   * sooner when the server suggests it. Default 2,000 (the server's own limit is 51,200).
   */
  continueAsNewAfterEvents?: number;
}

export interface OrderOutcome {
  state: OrderState;
  reason: string;
  quote?: QuoteRecord;
  product?: ProductRecord;
}
