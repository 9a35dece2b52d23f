import { z } from 'zod';
import { teamIdSchema } from '../../domain/approval/index.js';
import { ORDER_STATES } from '../../domain/lifecycle/index.js';

// The HTTP API's shapes, as zod: they validate requests, shape responses and become the OpenAPI document.

const currency = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter upper-case currency code, e.g. AUD');
const monthlyRate = z.number().finite().nonnegative().describe('the monthly rate of the quote you were shown');

/**
 * A string that may reach PostgreSQL, whose text cannot hold a NUL character: refused here (400) rather than
 * failing the query (500), or — for a comment, reason or note the workflow journals — every retry of the
 * journal write, which would hold the order where it is.
 */
const text = () => z.string().regex(/^[^\u0000]*$/, 'must not contain a NUL character (\\u0000)');
/** Free text of a decision or a note, trimmed, as the journal records it. */
const note = () => text().trim();

const orderId = () =>
  z.string().describe("the order's id: its ticket id in the submitter's namespace (`<ticketId>.<namespace>`)");

export const orderParams = z.object({
  orderId: text()
    .min(1)
    .max(255)
    .describe(
      "the order's id; or a ticket id: the ticket system that sent it names its orders by its own ticket ids, and anyone may name an order by its ticket id when no other order they may see has it (else 409 AMBIGUOUS_TICKET)",
    ),
});

export const errorBody = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })),
      mayHaveTakenEffect: z
        .boolean()
        .optional()
        .describe(
          "on a 503 to approve, reject, cancel or resolve-buy: true when the action was sent and no answer came back (read the order, or send it again: a repeat is answered with the order's state); false when it did not take effect",
        ),
    }),
  })
  .describe(
    'every refusal: 400 bad input, 401, 403, 404, 409 conflict or stale quote, 422 refused by a rule, 429 too many requests from this credential or too many failed authentications from this address (Retry-After), 503 PostgreSQL or Temporal does not answer (SERVICE_UNAVAILABLE), the request ran over its time limit (TIMEOUT) or the provider did not answer the read of a product named to settle a buy (PRODUCT_NOT_CHECKED), all with Retry-After',
  );

/** The refusals an order route may answer with, each in the error shape. */
export const orderRefusals = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  409: errorBody,
  422: errorBody,
  429: errorBody,
  503: errorBody,
};

/** Strict: a vote names the quote it decides on; the approver is the caller, so no field may name one. */
export const approveBody = z.strictObject({
  monthlyRate,
  currency,
  comment: note().min(1).max(2000).optional(),
});
export const rejectBody = z.strictObject({
  monthlyRate,
  currency,
  reason: note().min(1, 'must say why').max(2000),
});
export const cancelBody = z.strictObject({
  reason: note().min(1, 'must say why the order is cancelled').max(2000),
});
/**
 * The buy attempt ops checked at the provider (the order's `buyAttempts`): a resolution settles that attempt or none,
 * so one sent again after a 503 cannot settle a later attempt it was never about (and buy again).
 */
const checkedAttempt = z
  .number({ error: "must be the buy attempt you checked (the order's buyAttempts)" })
  .int("must be the buy attempt you checked (the order's buyAttempts)")
  .min(1, "must be the buy attempt you checked (the order's buyAttempts), 1 or more");

export const resolveBuyBody = z.discriminatedUnion('outcome', [
  z.strictObject({
    outcome: z.literal('created'),
    attempt: checkedAttempt,
    technicalServiceUid: z.uuid("must be the created product's UID (UUID form)"),
    note: note().min(1).max(2000).optional(),
  }),
  z.strictObject({
    outcome: z.literal('not-created'),
    attempt: checkedAttempt,
    note: note().min(1, 'must say how you know the MVE was not created').max(2000),
  }),
]);

export const orderState = z.enum(ORDER_STATES);

export const listOrdersQuery = z.object({
  status: orderState.optional(),
  environment: z.enum(['staging', 'production']).optional(),
  requester: text().min(1).max(255).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(500).optional().describe('nextCursor of the previous page'),
});

export const historyQuery = z.object({
  events: z
    .enum(['true', 'false'])
    .default('true')
    .describe("include the workflow's history events (false: the timeline only)"),
});

const money = z.object({ monthlyRate: z.number(), currency: z.string() });

/** What an order asked for, in words, from its recorded request (client/orders/ordered.ts). */
const ordered = z
  .object({
    productName: z.string().optional(),
    size: z.string().optional().describe('the size label, e.g. "MVE 8/32"'),
    term: z.number().optional().describe('months'),
    place: z.string().optional().describe('the location as asked, e.g. "Sydney, AU" or "location 101"'),
    image: z.string().optional().describe('the image as asked, e.g. "Cisco C8000 latest" or "image 42"'),
    diversityZone: z.string().optional(),
    vnics: z
      .array(z.string())
      .optional()
      .describe("each vNIC's description; absent when the request left the vNICs to the provider"),
  })
  .describe('what the order asked for, from its recorded request (secrets redacted; vendorConfig never shown)');

/** An exact amount of money in the figures' currency, as budget-fit and the records sum it: a decimal string. */
const figure = () => z.string().describe('an exact decimal amount in the currency, e.g. "1618.22" (never a float)');
const limits = (what: string) =>
  z
    .object({ monthlyNew: figure().nullable(), runRateCap: figure().nullable() })
    .describe(`${what}, for the budget of new commitments this month and the run-rate cap (null: no such limit)`);

/**
 * What an approver weighs beside the price (client/orders/service/decision-figures.ts): the order's team and its
 * commitments in the order's currency, its budget, and what would remain after this order.
 */
export const decisionFigures = z
  .object({
    team: z.string(),
    teamName: z.string().nullable().describe("the team's name in the policy (null: one it no longer lists)"),
    currency: z.string(),
    month: z.string().describe("the calendar month counted, YYYY-MM in the policy's budgetTimeZone"),
    timeZone: z.string(),
    asOf: z.string().describe('when the run-rate is taken'),
    runRate: figure().describe("the monthly prices of the team's bought orders whose term runs"),
    approvedNotBought: figure().describe(
      'the monthly prices approved and not bought yet (the run-rate cap counts them)',
    ),
    approvedThisMonth: figure().describe('the monthly prices approved this month that still stand'),
    budget: limits("the team's budget in the currency"),
    price: figure().describe("this order's monthly price"),
    remainingAfter: limits('what would remain with this order counted (negative: over)'),
    overBudget: z
      .object({
        reason: z.string().describe('why, in words, as the timeline and the ticket say it'),
        overruns: z.array(
          z.object({
            limit: z.enum(['monthlyNew', 'runRateCap']),
            budget: figure(),
            withOrder: figure(),
            over: figure(),
          }),
        ),
      })
      .nullable()
      .describe('set when this order would take the team over a budget'),
  })
  .describe(
    "the team's figures beside the price while the order awaits a decision: run-rate, approved not bought, approved this month, budget and what would remain after this order, in the order's currency",
  );

/** The order as this API shows it: live from the workflow while Temporal has it, else from the records. */
export const orderBody = z.looseObject({
  orderId: orderId(),
  ticketId: z.string().describe("the submitter's own id for the order, unique among its tickets"),
  workflowId: z.string(),
  environment: z.string(),
  requestedBy: z.string(),
  submittedBy: z.string().nullable(),
  state: orderState,
  policy: z.object({ version: z.string(), hash: z.string() }).nullable(),
  team: z
    .string()
    .nullable()
    .optional()
    .describe('the team (cost centre) the order is charged to; null: none. On every read of the order'),
  quote: money.extend({ quotedAt: z.string().optional() }).nullable(),
  budget: decisionFigures
    .nullable()
    .optional()
    .describe(
      "present while the order awaits approval: its team's figures beside the price (null: it has no team, or its policy lists none)",
    ),
  quoteHistory: z
    .array(money.extend({ quotedAt: z.string() }).loose())
    .optional()
    .describe('every quote, oldest first, when there was more than one (a re-check before buying); times in ISO 8601'),
  ordered: ordered.optional(),
  source: z
    .enum(['workflow', 'records'])
    .describe(
      'workflow: live from Temporal; records: from PostgreSQL (the workflow is gone, or no worker has started it yet)',
    ),
  approval: z
    .looseObject({
      eligibleApprovers: z
        .number()
        .optional()
        .describe(
          "approvers who could vote on the round by the directory as the order last read it (`directoryReadAt`): active, holding one of the tier's roles, not the requester",
        ),
      shortOfApprovers: z
        .object({
          eligible: z.number(),
          needed: z.number(),
          message: z.string(),
          nextDirectoryReadAt: z.string().optional(),
        })
        .optional()
        .describe(
          'set while the order awaits approval and fewer approvers could vote than its tier needs: no one can approve it until the approver directory changes (give someone the role, or cancel the order); the order reads the directory again at nextDirectoryReadAt',
        ),
      overBudget: z
        .string()
        .optional()
        .describe(
          "set when the round's tier is the policy's overBudget tier because the price would take the order's team over a budget: why, in words",
        ),
    })
    .optional()
    .describe(
      'the approval round (tier, votes, stillNeeded, deadline, remindersSent, …), live from the workflow; absent before the quote needs one, and from the records',
    ),
  waitingForWorkerSince: z
    .string()
    .optional()
    .describe(
      'set while no worker has started the order (none serves its environment now): since when it waits; it can be cancelled, not decided',
    ),
  provisioning: z
    .object({
      status: z.string().describe("the provider's provisioningStatus of the product: DEPLOYABLE, CONFIGURED, LIVE…"),
      since: z.string(),
      startedAt: z
        .string()
        .describe('when the follow-up began: when the order was bought, as its timeline says (or the buy settled)'),
      deadline: z.string().describe('when the order ends PROVISIONING_STALLED if the product is not LIVE'),
      lastAnsweredAt: z.string().optional(),
      failedReads: z.number().describe('product reads that failed since the API last answered one'),
      remindersSent: z.number(),
      statuses: z
        .array(z.object({ status: z.string(), at: z.string() }))
        .describe('every status seen, oldest first, with when it was first seen'),
      settledBy: z
        .string()
        .optional()
        .describe(
          'who settled an uncertain buy as created, when it was bought that way: the follow-up began then, its first status the one the provider reported at the settlement',
        ),
    })
    .optional()
    .describe(
      "set once the order is bought, when the workers follow its product's provisioning (live from the workflow)",
    ),
});

export const submitResponse = z.object({
  created: z.boolean(),
  order: orderBody,
  warnings: z.array(z.object({ path: z.string(), message: z.string() })),
});

export const listOrdersResponse = z.object({
  orders: z.array(
    z.looseObject({ orderId: orderId(), ticketId: z.string(), state: orderState, requestedBy: z.string() }),
  ),
  nextCursor: z.string().nullable(),
});

/** Set when a request repeats an action of the caller's that already took effect: what it was; nothing changed. */
const alreadyDone = z
  .string()
  .optional()
  .describe("set when this repeats the caller's action that already took effect: what it was; nothing changed");

export const voteResponse = z.object({
  state: orderState,
  approvedBy: z.array(z.string()),
  stillNeeded: z.number(),
  alreadyDone,
});

export const stateResponse = z.object({ state: orderState, alreadyDone });

export const approvalsResponse = z.object({
  approvals: z.array(
    z.object({
      orderId: orderId(),
      ticketId: z.string(),
      requestedBy: z.string(),
      environment: z.string(),
      ordered,
      monthlyRate: z.number().nullable(),
      currency: z.string().nullable(),
      team: z.string().nullable().describe('the team the order is charged to; null: none'),
      budget: decisionFigures.nullable().describe("the team's figures beside the price (null: no team)"),
      tier: z.string(),
      approvalsNeeded: z.number(),
      approvalsGiven: z.number(),
      stillNeeded: z.number(),
      deadline: z.string().nullable(),
      waitingSince: z.string(),
    }),
  ),
});

/** One order waiting for the caller's vote, as GET /api/v1/approvals lists it. */
export type PendingApproval = z.output<typeof approvalsResponse>['approvals'][number];

export const meResponse = z.object({
  id: z.string().describe('the name you act under: the requester you order as, the approver you vote as'),
  qualifiedId: z
    .string()
    .describe(
      "who you are, unique across credentials: an API token's owner, or <issuer>#<username> for an OIDC person; what an order's submittedBy records",
    ),
  roles: z.array(z.string()),
  via: z.enum(['oidc', 'token']),
  can: z.object({
    readOrders: z.boolean().describe('false without any role: no order can be read'),
    submit: z.boolean(),
    approve: z.boolean(),
    seeAllOrders: z.boolean(),
    resolveBuys: z.boolean(),
    readHistoryPayloads: z.boolean(),
  }),
});

export const historyResponse = z.object({
  orderId: orderId(),
  ticketId: z.string(),
  workflowId: z.string(),
  timeline: z.array(
    z.looseObject({
      seq: z.number(),
      at: z.string(),
      kind: z.enum(['state', 'note']),
      actor: z.string(),
      text: z.string(),
    }),
  ),
  votes: z.array(
    z.object({
      quoteNumber: z.number(),
      approverId: z.string(),
      decision: z.string(),
      monthlyRate: z.string(),
      currency: z.string(),
      reason: z.string().nullable(),
      at: z.string(),
      figures: z
        .record(z.string(), z.unknown())
        .nullable()
        .describe(
          "the figures the approver was shown (the shape of an order's `budget`), as the API computed them at the moment it accepted the vote; null: the order has no team, or the vote predates them",
        ),
    }),
  ),
  buyAttempts: z.array(
    z.object({
      attempt: z.number(),
      intentAt: z.string(),
      outcome: z.string().nullable(),
      technicalServiceUid: z.string().nullable(),
      errorClass: z.string().nullable(),
      errorMessage: z.string().nullable(),
      finishedAt: z.string().nullable(),
      resolvedBy: z.string().nullable(),
      runId: z.string().nullable(),
      sentAt: z.string().nullable().describe('when the buy request was about to leave; null: it never left'),
    }),
  ),
  events: z
    .array(z.unknown())
    .describe(
      "Temporal's history events as proto3 JSON; payloads decoded and redacted for ops and admins, withheld for others",
    ),
});

/** An exact amount of money, as the records sum it: a decimal string, in its currency. */
const decimal = () => z.string().describe('an exact decimal amount, e.g. "1618.22" (never a float; negative: over)');

export const commitmentsQuery = z.object({
  environment: z
    .enum(['staging', 'production'])
    .default('production')
    .describe("whose commitments, under that environment's policy (default production)"),
  month: z
    .string()
    .regex(/^[12]\d{3}-(0[1-9]|1[0-2])$/, 'must be a month as YYYY-MM (years 1000 to 2999), e.g. 2026-11')
    .optional()
    .describe("the calendar month in the policy's budgetTimeZone; default: the current one"),
  team: teamIdSchema().optional().describe("only this team's (a requester may name only their own)"),
  currency: currency.optional().describe('only this currency'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .optional()
    .describe('orders behind the figures per page: JSON 50 by default, at most 500; CSV 10,000 by default and at most'),
  cursor: z.string().max(500).optional().describe('nextCursor of the previous page (X-Next-Cursor of a CSV)'),
  format: z.enum(['json', 'csv']).optional().describe('csv: the same as CSV (as `Accept: text/csv`)'),
  renewalDays: z.coerce
    .number()
    .int()
    .min(1)
    .max(366)
    .optional()
    .describe('renewals: the terms ending within this many days of asOf (default 90, at most 366)'),
});

const amounts = z.object({ monthlyNew: decimal().nullable(), runRateCap: decimal().nullable() });

export const commitmentsResponse = z.object({
  environment: z.enum(['staging', 'production']),
  month: z.string().describe('YYYY-MM'),
  timeZone: z.string().describe("the policy's budgetTimeZone (UTC for a policy without teams)"),
  monthStart: z.string().describe('the first instant of the month in that time zone'),
  monthEnd: z.string().describe('the first instant of the next month'),
  asOf: z.string().describe('when the run-rate is taken: now, within the month; its end for a month gone by'),
  teams: z.array(
    z.object({
      team: z.string().nullable().describe('null: orders charged to no team'),
      name: z.string().nullable().describe("the team's name in the policy"),
      currency: z.string(),
      runRate: decimal().describe('the monthly prices of the bought orders whose term runs at asOf'),
      runningOrders: z.number().int(),
      approvedThisMonth: decimal().describe('the monthly prices approved in the month, of orders that still stand'),
      approvedOrders: z.number().int(),
      approvedNotBought: decimal().describe(
        'the monthly prices approved and not bought yet, in any month: they run once bought, so the run-rate cap counts them',
      ),
      budget: amounts.describe("the policy's limits in this currency (null: none)"),
      remaining: amounts.describe(
        'budget less what counts against it, as the budget check counts it: monthlyNew less approvedThisMonth, runRateCap less runRate and approvedNotBought',
      ),
    }),
  ),
  orders: z.array(
    z.object({
      orderId: orderId(),
      ticketId: z.string(),
      team: z.string().nullable(),
      state: orderState,
      currency: z.string(),
      monthlyRate: decimal(),
      termMonths: z.number().int(),
      termTotal: decimal().describe('monthlyRate times termMonths'),
      boughtAt: z.string().nullable().describe("when it was bought: its term's start"),
      termEndsAt: z.string().nullable(),
      approvedAt: z.string().nullable().describe('its latest approval'),
      inRunRate: z.boolean(),
      approvedThisMonth: z.boolean(),
    }),
  ),
  nextCursor: z.string().nullable(),
  renewalDays: z.number().int().describe('the renewals window, in days from asOf'),
  renewals: z
    .array(
      z.object({
        orderId: orderId(),
        ticketId: z.string(),
        team: z.string().nullable(),
        currency: z.string(),
        monthlyRate: decimal(),
        termMonths: z.number().int(),
        boughtAt: z.string().describe("its term's start"),
        termEndsAt: z.string().describe("termMonths calendar months after boughtAt, in the policy's budgetTimeZone"),
        daysLeft: z.number().int().describe('whole days from asOf to termEndsAt, a part of a day counting as one'),
      }),
    )
    .describe('the bought orders whose term runs at asOf and ends within renewalDays days of it, the soonest first'),
  moreRenewals: z.boolean().describe('more terms end in the window than the 500 listed'),
});

/** `GET /api/v1/commitments` as its callers read it (the HTTP client, the console, the CLI). */
export type Commitments = z.output<typeof commitmentsResponse>;
/** A team's figures in one currency: exact decimal strings, never converted between currencies. */
export type TeamCommitmentFigures = Commitments['teams'][number];
export type CommittedOrder = Commitments['orders'][number];
export type Renewal = Commitments['renewals'][number];
