/**
 * The order workflow's activities as types: the workflow imports only this file (as types), never the
 * implementations. Inputs and outputs are plain JSON; outputs never carry a secret or the catalog.
 */
import type { ApprovalPolicy, Approver, BudgetFit } from '../../domain/approval/index.js';
import type { OrderState } from '../../domain/lifecycle/index.js';
import type { ProvisioningPlan } from '../../domain/lifecycle/index.js';
import type { OrderRequest } from '../../schemas/index.js';
import type { Signed } from './signed-action.js';

export type Environment = OrderRequest['environment'];

export interface ChosenLocation {
  id: number;
  name: string;
  metro: string | null;
  country: string | null;
}

export interface ChosenImage {
  id: number;
  vendor: string;
  product: string;
  version: string;
}

export interface OrderTargets {
  location: ChosenLocation;
  image: ChosenImage;
  kind: string;
  /** Choices the lookup made that a person should know of (several locations matched, vnics omitted…). */
  warnings: string[];
}

/** What the location lookup found, with choices it made that a person should know of. */
export interface LocationLookup {
  location: ChosenLocation;
  warnings: string[];
}

/** What the image lookup found: the image, the kind the request makes of it, and what a person should know. */
export interface ImageLookup {
  image: ChosenImage;
  kind: string;
  warnings: string[];
}

export interface QuoteRecord {
  monthlyRate: number;
  currency: string;
  /** When the workflow received it (epoch ms on the workflow's clock, the one its staleness checks use). */
  quotedAt: number;
  productUid?: string;
  traceId?: string;
}

export interface ProductRecord {
  technicalServiceUid: string;
  provisioningStatus: string;
  serviceName?: string;
  contractTermMonths?: number;
}

/** What the API said about one buy request. Never thrown: the workflow decides on each outcome. */
export type BuyOutcome =
  | {
      outcome: 'created';
      product: ProductRecord;
      traceId?: string;
      /**
       * What the created MVE adds to the order's journal: `written` says whether the
       * activity wrote it to Postgres.
       */
      journal?: { entries: JournalEntry[]; written: boolean };
    }
  /** Provably not applied and worth retrying (429, connection refused, 401 before processing). */
  | { outcome: 'not-created'; retryable: true; retryAfterMs?: number; error: ErrorSummary }
  /** Provably not applied and retrying cannot help (refused with 400, permission denied). */
  | { outcome: 'not-created'; retryable: false; error: ErrorSummary }
  /** May or may not have been carried out (timeout after sending, connection cut, 5xx). */
  | { outcome: 'uncertain'; error: ErrorSummary };

/**
 * What the buy answers: an outcome, or that nothing was sent because the journal it was given (with the
 * attempt's intent) could not be written.
 */
export type BuyAnswer = BuyOutcome | { outcome: 'unrecorded'; error: ErrorSummary };

export interface ErrorSummary {
  type: string;
  message: string;
  status?: number;
  traceId?: string;
}

export interface OrderContext {
  workflowId: string;
  environment: Environment;
  /** The workflow run: recorded with the order and each buy attempt. */
  runId?: string;
}

/** What building the buy needs of the targets the lookup chose (no warnings, no names). */
export interface BuyTargets {
  location: { id: number };
  image: { id: number; vendor: string; product: string };
}

/**
 * The buy's input. The request is not in it: the activity reads it from the run's own start input
 * (`OrderRequestReader`), so history holds the request once. The workflow id and run id come from the
 * activity's context.
 */
export interface BuyInput {
  targets: BuyTargets;
  attempt: number;
  /**
   * The order's journal up to this attempt's intent: the activity writes it before the request can leave (the
   * write-ahead rule), so the record costs no activity of its own. Empty when the workflow wrote it already.
   */
  journal: JournalEntry[];
  /**
   * The activity records a created MVE itself (the attempt's outcome, the product, the move to BOUGHT by `actor`),
   * numbered on from the order's journal sequence `seq`, so the order needs no journal activity after the buy.
   */
  recordCreated: { seq: number; actor: string };
}

/** The journal's input: the workflow id and run id come from the activity's context. */
export interface JournalInput {
  entries: JournalEntry[];
}

/** One line of the order's journal, written to Postgres in order and idempotently (key: workflowId + seq). */
export type JournalEntry =
  | {
      type: 'received';
      seq: number;
      at: number;
      /**
       * Only in entries of older inputs (see `LegacyJournalInput`). The activity reads the request from the run's
       * start input, and redacts it before it is stored.
       */
      request?: OrderRequest;
    }
  | {
      type: 'transition';
      seq: number;
      at: number;
      from: OrderState | null;
      to: OrderState;
      actor: string;
      reason: string;
      details?: Record<string, unknown>;
    }
  /** `quoteNumber` counts the order's quotes: 1, then one more for each re-validation. */
  | { type: 'quote'; seq: number; at: number; quoteNumber: number; quote: QuoteRecord }
  | {
      type: 'vote';
      seq: number;
      at: number;
      quoteNumber: number;
      approverId: string;
      decision: 'approve' | 'reject';
      monthlyRate: number;
      currency: string;
      comment?: string;
      /** The vote as the HTTP API signed it: the records refuse a vote whose signature they cannot verify. */
      signed?: Signed<object>;
    }
  | { type: 'note'; seq: number; at: number; actor: string; message: string; details?: Record<string, unknown> }
  /**
   * The approval policy that governs the order, as the workers hold it when the order starts: its rules are stored
   * once per hash (by `loadApprovalPolicy`, before any order can name it). `policy` is there when they could not be
   * stored then (`GoverningPolicy.unstored`): the journal carries them instead.
   */
  | { type: 'policy'; seq: number; at: number; version: string; hash: string; policy?: ApprovalPolicy }
  | { type: 'buy-intent'; seq: number; at: number; attempt: number }
  | {
      type: 'buy-outcome';
      seq: number;
      at: number;
      attempt: number;
      outcome: 'created' | 'not-created' | 'uncertain';
      product?: ProductRecord;
      error?: ErrorSummary;
      /** Set when ops resolved an uncertain attempt. */
      resolvedBy?: string;
    }
  | { type: 'product'; seq: number; at: number; product: ProductRecord; actor: string }
  /** The order's last error, as ops see it (null clears it). */
  | { type: 'error'; seq: number; at: number; message: string | null };

/** A change of the order, as POSTed (signed) to the ticket system's callback URL. */
export interface TicketNotification {
  workflowId: string;
  ticketId: string;
  seq: number;
  at: string;
  state: OrderState;
  event: string;
  message: string;
  quote?: { monthlyRate: number; currency: string };
  product?: ProductRecord;
}

/**
 * Which change of the order the ticket system is told of: its journal sequence number. The activity reads the order
 * from the records of its own workflow (its context) and builds the notification from them: where it goes and what it
 * says never come from the input.
 */
export interface TicketNotificationInput {
  seq: number;
}

/** The changes told as notes; the others (`received`, `state-changed`) are the order's recorded state changes. */
export type TicketNoteEvent =
  | 'approval-reminder'
  | 'approvers-missing'
  | 'approvers-found'
  | 'buy-uncertain-reminder'
  | 'provisioning-changed'
  | 'provisioning-slow';

/** What a note the ticket system is told of carries in its details: the event it is told as. */
export interface TicketNoteDetails {
  ticketEvent: TicketNoteEvent;
}

/** The policy in force for an environment, from the workers' own configuration (never from the submitter). */
export interface GoverningPolicy {
  version: string;
  /** SHA-256 (hex) of the environment's parsed policy as canonical JSON: two orders with the same hash had the same rules. */
  hash: string;
  policy: ApprovalPolicy;
  /**
   * True when the workers tell approvers over a webhook (MVE_APPROVER_WEBHOOK_URL is set). Read with the policy
   * when the order starts, so an order without it schedules nothing for approvers (no extra history).
   */
  approverWebhook?: boolean;
  /**
   * Set by `loadApprovalPolicy` when the rules could not be stored (the database did not answer): the order's policy
   * entry then carries them, and the journal stores them with the order.
   */
  unstored?: boolean;
}

/** What approvers are told when an order starts waiting for them, and at each reminder. */
export interface ApproverMessage {
  workflowId: string;
  ticketId: string;
  environment: Environment;
  /** The order's journal sequence when the message was made: with the ticket, a key for idempotency. */
  seq: number;
  event: 'awaiting-approval' | 'approval-reminder';
  /** 1, 2…: which reminder this is (event `approval-reminder`). */
  reminder?: number;
  requestedBy: string;
  quote: { monthlyRate: number; currency: string };
  tier: { name: string; roles: string[]; approvals: number };
  stillNeeded: number;
  /** ISO time by which the round must be decided. */
  deadline: string;
  /** What is being bought, e.g. "Fortinet FortiGate 7.0.14 (kind K9) at Sydney". */
  summary?: string;
}

/**
 * What a run's first step is given: what the run was started with, and what the server says of the run. The activity
 * reads the run's own workflow and run id from its context.
 */
export interface BeginRunInput {
  request: OrderRequest;
  submittedBy?: string;
  /** The first run of the run's chain (`firstExecutionRunId`): the run that claims, or claimed, the ticket. */
  firstRunId: string;
  /** The run this one continued from (`continuedFromExecutionRunId`), when the server says it continued. */
  continuedFromRunId?: string;
  /** The progress the run was started with, and the seal the run that continued made over it (carried-seal.ts). */
  carried?: { progress: unknown; seal?: unknown };
}

/**
 * May this run act for its ticket? A first run admitted is given its environment's policy (or why it cannot have
 * one) and, when the workers follow bought products until they are live, how they do it; a run that continued keeps
 * what it carries.
 */
export type BeginRunAnswer =
  | { admitted: true; policy?: GoverningPolicy; policyRefused?: string; provisioning?: ProvisioningPlan }
  | { admitted: false; reason: string };

/**
 * What the API said of a bought product when asked: its provisioning status, or that it answered 404 or 405 (an API
 * that does not offer the product read, or no longer knows the product). Failures to ask are thrown (and retried).
 */
export type ProductReadAnswer = { found: true; provisioningStatus: string } | { found: false; status: number };

/**
 * Whether the product ops name to settle an uncertain buy as created is this order's, as the provider shows it: its
 * status when it is, else why not (`code`, the refusal's) in words for ops.
 */
export type ResolvedProductCheck =
  | { accepted: true; provisioningStatus: string }
  | { accepted: false; code: 'PRODUCT_NOT_FOUND' | 'PRODUCT_OF_ANOTHER_ORDER'; reason: string };

/**
 * A price to check against the team's budget: the activity reads the order's team and the policy itself, and refuses a
 * price that is not the order's last quote a worker obtained (sealed).
 */
export interface BudgetInput {
  monthlyRate: number;
  currency: string;
}

/** The same, approved: by the tier named, or by the policy on its own (null). */
export interface BudgetCommitInput extends BudgetInput {
  tier: string | null;
}

/** How the price sits against the team's budget, and whether the approval was committed. */
export interface BudgetAnswer {
  /** The figures checked; null when there is nothing to check (no team, or no budget in the currency). */
  fit: BudgetFit | null;
  overBudget: boolean;
  /** Written to the records (never by a preview). */
  committed: boolean;
}

export interface OrderActivities {
  /**
   * Each run's first step: admits the run only when the API's intake registered its ticket and this chain claimed it
   * (and, after a continue-as-new, the carried state is sealed by the run before), then reads the approval policy
   * this worker enforces for a new order. The policy's rules are stored in Postgres (once per hash and worker process)
   * before it answers; when that store fails, it answers with `unstored`, and the order's journal carries the rules.
   */
  beginRun(input: BeginRunInput): Promise<BeginRunAnswer>;
  /** The location the request names, if the catalog sells MVEs there: a read of the API's locations. */
  lookUpLocation(input: OrderContext & { request: OrderRequest }): Promise<LocationLookup>;
  /** The image the request names in the size it asks for, and the appliance kind the request makes of it. */
  lookUpImage(input: OrderContext & { request: OrderRequest }): Promise<ImageLookup>;
  validateOrder(
    input: OrderContext & { request: OrderRequest; targets: OrderTargets },
  ): Promise<Omit<QuoteRecord, 'quotedAt'>>;
  /**
   * The buy, which writes the order's journal before it sends (the write-ahead rule) and records what it created.
   */
  buyOrder(input: BuyInput): Promise<BuyAnswer>;
  /** The bought product as the API reports it now (`GET /v2/product/{uid}`), for the provisioning follow-up. */
  readProduct(input: { environment: Environment; technicalServiceUid: string }): Promise<ProductReadAnswer>;
  /**
   * Reads the product ops name to settle this order's uncertain buy as created (`GET /v2/product/{uid}`): accepted
   * only when the provider has it under the name this order's buy gave it (`productNameOf`, read from the run's request).
   */
  checkResolvedProduct(input: { environment: Environment; technicalServiceUid: string }): Promise<ResolvedProductCheck>;
  /**
   * The approver directory; with `roles`, only its active approvers holding one of them (what a round short of
   * approvers reads while it waits for one: a few people, not the whole directory, in its history).
   */
  loadApprovers(input: { environment: Environment; roles?: string[] }): Promise<Approver[]>;
  recordJournal(input: JournalInput): Promise<void>;
  /**
   * For a buy activity that did not report back: ends the attempt as not created when its request never left (the
   * activity had not claimed it for sending) and answers true; false when it may have been sent.
   */
  closeUnsentBuy(input: { attempt: number }): Promise<boolean>;
  notifyTicketSystem(input: TicketNotificationInput): Promise<void>;
  /** How the price would sit against the team's budget now, this order's own commitment left out; commits nothing. */
  previewBudget(input: BudgetInput): Promise<BudgetAnswer>;
  /**
   * The budget check and the commitment of the approved price, as one transaction serialised per team: committed when
   * it fits, when the team has no budget in the currency, or when the tier approving it is at or above the policy's
   * `overBudget` tier; otherwise nothing is written and the answer says it is over budget.
   */
  commitBudget(input: BudgetCommitInput): Promise<BudgetAnswer>;
  /** Posts a signed Slack-compatible message to the approvers' webhook (MVE_APPROVER_WEBHOOK_URL); nothing when it is not set. */
  notifyApprovers(input: ApproverMessage): Promise<void>;
}
