import { z } from 'zod';

import { ORDER_STATES, type OrderState } from '../../domain/lifecycle/index.js';
import { teamIdSchema } from '../../domain/approval/index.js';

/** The order states, as the workflow names them (its states module is their one source) and the database checks them. */
export const ORDER_STATUSES = ORDER_STATES;
export type OrderStatus = OrderState;

export const ENVIRONMENTS = ['staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const BUY_OUTCOMES = ['created', 'not-created', 'uncertain'] as const;
export type BuyOutcome = (typeof BUY_OUTCOMES)[number];

/** Text as given by a person or a system: trimmed, not empty, at most `max` characters. */
export const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `at most ${max} characters`);
const workflowId = text(255);
const status = z.enum(ORDER_STATUSES);
const positiveInt = z.number().int('must be a whole number').min(1, 'must be at least 1');

/** A moment: a Date or an ISO 8601 string with offset; stored as timestamptz. */
export const moment = z
  .union([z.date(), z.iso.datetime({ offset: true })])
  .transform((value) => new Date(value).toISOString());

/**
 * Money is exact: a decimal string ("1234.50") or a JS number, which is turned into its shortest
 * decimal form before it reaches the numeric column, so no float arithmetic happens on our side.
 */
const money = z
  .union([z.number().finite(), z.string()])
  .transform(String)
  .pipe(z.string().regex(/^\d{1,15}(\.\d{1,6})?$/, 'must be a non-negative decimal amount, e.g. 1234.50'));

const currency = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code, e.g. USD');
const jsonObject = z.record(z.string(), z.unknown());

export const approverIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/, 'must be letters, digits and . _ @ - (at most 128)');
/** A team (cost centre) as the policy names it. */
export const teamSchema = teamIdSchema();
export const roleSchema = z
  .string()
  .regex(/^[a-z][a-z0-9._-]{0,63}$/, 'must be a lowercase word (letters, digits, . _ -), e.g. finance');

export const orderReceivedInput = z.object({
  workflowId,
  ticketId: text(255),
  environment: z.enum(ENVIRONMENTS),
  requestedBy: text(255),
  /** The order request WITH SECRETS ALREADY REDACTED by the caller. */
  request: jsonObject,
  /** The workflow run that received it. */
  runId: text(255).optional(),
  /** The team the intake charged it to (checked against its policy's teams); absent or null: none. */
  team: teamSchema.nullish(),
  at: moment.optional(),
});

export const transitionInput = z.object({
  workflowId,
  /** Chosen by the workflow, 1, 2, 3… (0 is the "received" event); the idempotency key. */
  sequence: positiveInt,
  from: status.nullable(),
  to: status,
  actor: text(255),
  reason: z.string().max(2000).nullish(),
  details: jsonObject.default({}),
  at: moment.optional(),
});

/** One run of one workflow, as the workers' evidence names it. */
export const runKey = z.object({ workflowId: text(255), runId: text(255) });

/** Cancelling an order no worker has started: who, and why. */
export const unstartedCancelInput = z.object({
  workflowId,
  actor: text(255),
  reason: z.string().max(2000),
});

/** A note on the order that is not a state change (a reminder, a refused signal, a scheduled retry). */
export const noteInput = z.object({
  workflowId,
  /** The workflow's sequence number, shared with the order's events: the idempotency key. */
  sequence: positiveInt,
  actor: text(255),
  message: text(4000),
  details: jsonObject.default({}),
  at: moment,
});

export const quoteInput = z.object({
  workflowId,
  /** 1 for the first quote; the workflow increments it when a re-validation needs a new approval. */
  quoteNumber: positiveInt,
  monthlyRate: money,
  currency,
  quotedAt: moment,
});

export const approvalVoteInput = z.object({
  workflowId,
  quoteNumber: positiveInt,
  approverId: approverIdSchema,
  decision: z.enum(['approve', 'reject']),
  /** The quote the approver saw. */
  monthlyRate: money,
  currency,
  reason: z.string().max(2000).nullish(),
  at: moment.optional(),
  /** The HTTP API's signature over the vote (workflows/order/signed-action.ts), kept so that a buy can check it. */
  signature: z.record(z.string(), z.unknown()).nullish(),
});

/** The figures an approver was shown, kept under the key of the vote they cast (migrations/0022_vote_figures.sql). */
export const voteFiguresInput = z.object({
  workflowId,
  quoteNumber: positiveInt,
  approverId: approverIdSchema,
  figures: jsonObject,
});

export const buyIntentInput = z.object({
  workflowId,
  attempt: positiveInt,
  /** The workflow run making the attempt. */
  runId: text(255).optional(),
  at: moment.optional(),
});

export const buyAttemptKey = z.object({ workflowId, attempt: positiveInt });

export const unsentBuyInput = buyAttemptKey.extend({ errorClass: text(100), errorMessage: z.string().max(4000) });

export const buyOutcomeInput = z
  .object({
    workflowId,
    attempt: positiveInt,
    outcome: z.enum(BUY_OUTCOMES),
    technicalServiceUid: text(255).nullish(),
    errorClass: text(100).nullish(),
    errorMessage: z.string().max(4000).nullish(),
    /** Set when ops resolved an uncertain buy: who said so. */
    resolvedBy: text(255).nullish(),
    at: moment.optional(),
  })
  .refine((input) => input.outcome !== 'created' || input.technicalServiceUid, {
    message: 'a created buy needs its technicalServiceUid',
    path: ['technicalServiceUid'],
  });

export const productInput = z.object({
  workflowId,
  technicalServiceUid: text(255),
  provisioningStatus: text(100),
});

export const lastErrorInput = z.object({
  workflowId,
  /** A redacted, human-readable message; null clears it. */
  error: z.string().min(1).max(4000).nullable(),
  at: moment.optional(),
});

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 in hex');

/** The rules of an approval policy, stored once under their content hash. */
export const approvalPolicyInput = z.object({
  hash: sha256Hex,
  policy: jsonObject,
});

export const policyInput = z.object({
  workflowId,
  version: text(100),
  hash: sha256Hex,
  /** The rules, when the caller has them (older journal entries carried them): stored under the hash first. */
  policy: jsonObject.optional(),
});

export const listOrdersInput = z.object({
  status: status.optional(),
  environment: z.enum(ENVIRONMENTS).optional(),
  ticketId: text(255).optional(),
  /** Compared case-insensitively. */
  requestedBy: text(255).optional(),
  /** Orders submitted through the API by this principal (compared case-insensitively). */
  submittedBy: text(255).optional(),
  /** Keyset paging: only orders after this one in the listing's order (newest first). */
  after: z.object({ createdAt: moment, workflowId }).optional(),
  limit: z.number().int().min(1).max(1000).default(100),
});

export const awaitingApprovalInput = z.object({
  /** The approver: orders they requested or already voted on (this quote) are left out. */
  approverId: text(255),
  /** Their approver roles: only orders whose current tier names one of them. */
  roles: z.array(text(64)).max(50),
  limit: z.number().int().min(1).max(1000).default(100),
});

const roles = z
  .array(roleSchema)
  .max(50)
  .transform((list) => [...new Set(list)].sort());

export const newApproverInput = z.object({
  id: approverIdSchema,
  displayName: text(255),
  roles,
  /** The team (cost centre) the person's orders are charged to when a request names none. */
  team: teamSchema.nullish(),
});

export const approverUpdateInput = z
  .object({
    id: approverIdSchema,
    displayName: text(255).optional(),
    roles: roles.optional(),
    /** A team, or null to clear it. */
    team: teamSchema.nullable().optional(),
    active: z.boolean().optional(),
  })
  .refine(
    (input) =>
      input.displayName !== undefined ||
      input.roles !== undefined ||
      input.team !== undefined ||
      input.active !== undefined,
    { message: 'name at least one of displayName, roles, team, active' },
  );

export const listApproversInput = z.object({
  activeOnly: z.boolean().default(false),
  role: roleSchema.optional(),
});

/** An API token's public id: the `<id>` of `mvo_<id>_<secret>` (lowercase letters and digits, no `_`). */
export const tokenIdSchema = z.string().regex(/^[a-z0-9]{8,32}$/, 'must be 8 to 32 lowercase letters and digits');

export const newTokenInput = z.object({
  id: tokenIdSchema,
  /** SHA-256 of the token's secret part: the only form in which the secret is ever stored. */
  secretHash: z
    .custom<Uint8Array>((value) => value instanceof Uint8Array, 'must be bytes')
    .refine((hash) => hash.length === 32, 'must be a 32-byte SHA-256 digest'),
  owner: approverIdSchema,
  roles: roles.pipe(z.array(z.string()).min(1, 'name at least one role')),
  description: text(500).nullish(),
  /** null or absent: never expires. */
  expiresAt: moment.refine((at) => Date.parse(at) > Date.now(), 'must be in the future').nullish(),
});

export const touchTokenInput = z.object({ id: tokenIdSchema, at: moment });

export const listTokensInput = z.object({
  owner: approverIdSchema.optional(),
  includeRevoked: z.boolean().default(false),
});

export const revokeTokenInput = z.object({
  id: tokenIdSchema,
  /** Who revoked it: a principal id, or who ran the CLI. */
  by: text(255),
});

export type OrderReceivedInput = z.input<typeof orderReceivedInput>;
export type TransitionInput = z.input<typeof transitionInput>;
export type NoteInput = z.input<typeof noteInput>;
export type QuoteInput = z.input<typeof quoteInput>;
export type ApprovalVoteInput = z.input<typeof approvalVoteInput>;
export type VoteFiguresInput = z.input<typeof voteFiguresInput>;
export type BuyIntentInput = z.input<typeof buyIntentInput>;
export type BuyOutcomeInput = z.input<typeof buyOutcomeInput>;
export type BuyAttemptKey = z.input<typeof buyAttemptKey>;
export type UnsentBuyInput = z.input<typeof unsentBuyInput>;
export type ProductInput = z.input<typeof productInput>;
export type LastErrorInput = z.input<typeof lastErrorInput>;
export type ListOrdersInput = z.input<typeof listOrdersInput>;
export type AwaitingApprovalInput = z.input<typeof awaitingApprovalInput>;
export type PolicyInput = z.input<typeof policyInput>;
export type ApprovalPolicyInput = z.input<typeof approvalPolicyInput>;
export type NewApproverInput = z.input<typeof newApproverInput>;
export type ApproverUpdateInput = z.input<typeof approverUpdateInput>;
export type ListApproversInput = z.input<typeof listApproversInput>;
export type NewTokenInput = z.input<typeof newTokenInput>;
export type ListTokensInput = z.input<typeof listTokensInput>;
export type RevokeTokenInput = z.input<typeof revokeTokenInput>;
