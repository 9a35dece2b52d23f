import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  ApproverMessage,
  BuyOutcome,
  ErrorSummary,
  GoverningPolicy,
  JournalEntry,
  OrderActivities,
  OrderTargets,
  ProductRecord,
  QuoteRecord,
  TicketNotification,
} from '../activity-types.js';
import {
  approvalDeadline,
  approvalRequirement,
  isQuoteStale,
  parseApprovalPolicy,
  reminderTimes,
  requoteDecision,
  tallyVotes,
  validateApprovalVote,
  type ApprovalPolicy,
  type ApprovalTier,
  type ApprovalVote,
  type Approver,
} from '../../../domain/approval/index.js';
import { workerActionKeys } from '../action-keys.js';
import {
  approveUpdate,
  cancelUpdate,
  rejectUpdate,
  resolveBuyUpdate,
  statusQuery,
  type CancelInput,
  type OrderStatusView,
  type ResolveBuyInput,
  type TimelineEntry,
  type VoteInput,
  type VoteResult,
} from '../messages.js';
import { Outbox } from '../outbox.js';
import type { OrderOutcome, OrderWorkflowInput } from '../types.js';
import { messageOf, summarise } from '../failures.js';
import { verifyAction, type Signed, type SignedActionName } from '../signed-action.js';
import { ENVIRONMENT, MONTHLY_RATE, ORDER_STATUS, TICKET_ID } from '../search-attributes.js';
import { CANCELLABLE_STATES, canTransition, FINAL_STATES, type OrderState } from '../../../domain/order-states.js';

const DEFAULT_BUY_UNCERTAIN_REMINDER_MS = 4 * 60 * 60 * 1000;
const DEFAULT_MAX_BUY_ATTEMPTS = 6;
/** How long an order that has ended waits for the ticket system to take its last notifications. */
const FINAL_NOTIFICATION_WAIT_MS = 5 * 60 * 1000;
const ENGINE = 'engine';
/** The journal activity's failure type when the records refuse a buy intent (see record-activities.ts). */
const BUY_INTENT_REFUSED = 'BuyIntentRefused';
const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Lookups, validation and the token: idempotent reads, retried with backoff (the activity marks what is final). */
const api = proxyActivities<OrderActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 8 },
});

/**
 * The buy is charged and not idempotent: Temporal never retries it. The activity reports every answer as an
 * outcome; an activity that does not report (worker lost, timeout) is an uncertain buy.
 */
const buying = proxyActivities<OrderActivities>({
  startToCloseTimeout: '3 minutes',
  retry: { maximumAttempts: 1 },
});

/**
 * Postgres records: retried until the database answers, so nothing is lost while it is down. A batch is a few
 * small idempotent writes, so a short timeout lets a worker that died mid-write be noticed quickly.
 */
const records = proxyActivities<OrderActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Ticket-system callbacks: retried for an hour, then given up (the journal says so). */
const callbacks = proxyActivities<OrderActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '30 minutes' },
});

/**
 * Messages to the approvers' webhook: a few tries within minutes, then given up (the journal says so). The order
 * never waits on them: they go out through their own outbox.
 */
const approverMessages = proxyActivities<OrderActivities>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** The end of an order before buying; `undefined` means the order may go on to buy. */
type Ending = { state: 'REJECTED' | 'EXPIRED' | 'CANCELLED' | 'FAILED'; actor: string; reason: string } | undefined;

interface ApprovalRoundState {
  tier: ApprovalTier;
  quote: QuoteRecord;
  quoteNumber: number;
  approvers: Approver[];
  votes: ApprovalVote[];
  deadline: number;
  remindersSent: number;
}

/**
 * The order workflow as it was before the lean restructure (docs/order-workflow.md, "Version cut-over"): runs
 * that began on it carry on here, unchanged, so their histories replay. Frozen: new orders never come here.
 * Delete it (and its activities: refreshApiToken, the journal, lookups and validation as activities) once no
 * run that started before the cut-over is open.
 */
export async function orderWorkflowV1(input: OrderWorkflowInput): Promise<OrderOutcome> {
  const { request } = input;
  const { workflowId } = workflowInfo();
  const environment = request.environment;
  const context = { workflowId, environment, runId: workflowInfo().runId };
  const buyUncertainReminderMs = input.options?.buyUncertainReminderMs ?? DEFAULT_BUY_UNCERTAIN_REMINDER_MS;
  const maxBuyAttempts = input.options?.maxBuyAttempts ?? DEFAULT_MAX_BUY_ATTEMPTS;

  let state: OrderState = 'RECEIVED';
  let seq = 0;
  const timeline: TimelineEntry[] = [];
  let targets: OrderTargets | undefined;
  let quote: QuoteRecord | undefined;
  /** Every quote the order was given, oldest first: a price that rose is shown as such. */
  const quotes: QuoteRecord[] = [];
  let quoteNumber = 0;
  let round: ApprovalRoundState | undefined;
  let buyAttempts = 0;
  let product: ProductRecord | undefined;
  let lastError: OrderStatusView['lastError'];
  let cancelRequest: CancelInput | undefined;
  let buyResolution: ResolveBuyInput | undefined;
  let preBuyScope: CancellationScope | undefined;
  let governing: GoverningPolicy | undefined;
  let buyIntentRefusal: ErrorSummary | undefined;
  /** Nonces of the signed actions this order accepted: the same signed message is never accepted twice. */
  const acceptedNonces = new Set<string>();
  const actionKeys = workerActionKeys();

  const journal = new Outbox<JournalEntry>(
    (entries) => records.recordJournal({ ...context, ticketId: request.ticketId, entries }),
    {
      maxBatch: 50,
      retryAfterMs: 60_000,
      onFailure: (error) => {
        const summary = summarise(error, 'recording the order failed');
        // The records refuse this attempt (they hold it already, from another run): the buy must not leave.
        if (summary.type === BUY_INTENT_REFUSED) {
          buyIntentRefusal = summary;
          return 'drop';
        }
        // Only in memory: journaling the journal's own failure would grow the queue it cannot drain.
        lastError = { ...summary, at: new Date(Date.now()).toISOString() };
        return 'requeue';
      },
    },
  );
  const notifications = new Outbox<TicketNotification>(
    async ([notification]) => {
      if (request.callbackUrl && notification) await callbacks.notifyTicketSystem({ callbackUrl: request.callbackUrl, notification });
    },
    {
      maxBatch: 1,
      retryAfterMs: 0,
      onFailure: (error, [notification]) => {
        journal.push({ type: 'note', seq: nextSeq(), at: Date.now(), actor: ENGINE, message: `the ticket system did not accept notification ${notification?.seq}: ${messageOf(error)}` });
        return 'drop';
      },
    },
  );

  /** Started only when the workers have an approvers' webhook: without one an order schedules nothing for it. */
  const approverOutbox = new Outbox<ApproverMessage>(
    async ([message]) => {
      if (message) await approverMessages.notifyApprovers(message);
    },
    {
      maxBatch: 1,
      retryAfterMs: 0,
      onFailure: (error, [message]) => {
        const what = message?.event === 'approval-reminder' ? `reminder ${message.reminder}` : 'the approval request';
        const summary = summarise(error, 'the message could not be sent');
        note(ENGINE, `the approvers' webhook did not take ${what}: ${summary.message}`, { event: message?.event, seq: message?.seq, type: summary.type });
        return 'drop';
      },
    },
  );

  function nextSeq(): number {
    return ++seq;
  }

  function noteError(error: unknown, context: string): ErrorSummary {
    const summary = summarise(error, context);
    setLastError(summary);
    return summary;
  }

  function setLastError(summary: ErrorSummary): void {
    lastError = { ...summary, at: new Date(Date.now()).toISOString() };
    journal.push({ type: 'error', seq: nextSeq(), at: Date.now(), message: summary.message });
  }

  function notify(event: string, message: string): void {
    if (!request.callbackUrl) return;
    notifications.push({
      workflowId,
      ticketId: request.ticketId,
      seq: seq,
      at: new Date(Date.now()).toISOString(),
      state,
      event,
      message,
      ...(quote ? { quote: { monthlyRate: quote.monthlyRate, currency: quote.currency } } : {}),
      ...(product ? { product } : {}),
    });
  }

  /** Tells approvers (through the workers' webhook, when they have one) that the round waits for them. */
  function tellApprovers(current: ApprovalRoundState, event: ApproverMessage['event']): void {
    if (!governing?.approverWebhook) return;
    const tally = tallyVotes(approvalRound(current));
    approverOutbox.push({
      workflowId,
      ticketId: request.ticketId,
      environment,
      seq,
      event,
      ...(event === 'approval-reminder' ? { reminder: current.remindersSent } : {}),
      requestedBy: request.requestedBy,
      quote: { monthlyRate: current.quote.monthlyRate, currency: current.quote.currency },
      tier: { name: current.tier.name, roles: [...current.tier.roles], approvals: current.tier.approvals },
      stillNeeded: tally.outcome === 'waiting' ? tally.stillNeeded : 0,
      deadline: new Date(current.deadline).toISOString(),
      ...(targets ? { summary: `${targets.image.vendor} ${targets.image.product} ${targets.image.version} (kind ${targets.kind}) at ${targets.location.name}` } : {}),
    });
  }

  function moveTo(to: OrderState, actor: string, reason: string, details?: Record<string, unknown>): void {
    if (!canTransition(state, to)) {
      // A bug, not a business outcome: fail the workflow task so the order parks visibly, unchanged.
      throw new Error(`illegal order transition ${state} -> ${to}`);
    }
    const from = state;
    state = to;
    const at = Date.now();
    const entry: TimelineEntry = { seq: nextSeq(), at: new Date(at).toISOString(), state: to, actor, reason };
    timeline.push(entry);
    journal.push({ type: 'transition', seq: entry.seq, at, from, to, actor, reason, ...(details ? { details } : {}) });
    upsertSearchAttributes([{ key: ORDER_STATUS, value: to }]);
    notify('state-changed', reason);
  }

  function note(actor: string, message: string, details?: Record<string, unknown>): void {
    journal.push({ type: 'note', seq: nextSeq(), at: Date.now(), actor, message, ...(details ? { details } : {}) });
  }

  function statusView(): OrderStatusView {
    const tally = round ? tallyVotes(approvalRound(round)) : undefined;
    return {
      workflowId,
      ticketId: request.ticketId,
      environment,
      requestedBy: request.requestedBy,
      ...(input.submittedBy ? { submittedBy: input.submittedBy } : {}),
      state,
      ...(governing ? { policy: { version: governing.version, hash: governing.hash } } : {}),
      ...(targets ? { location: targets.location, image: targets.image, kind: targets.kind } : {}),
      ...(quote ? { quote } : {}),
      ...(quotes.length > 1 ? { quoteHistory: [...quotes] } : {}),
      ...(round && tally
        ? {
            approval: {
              tier: round.tier,
              votes: [...round.votes],
              stillNeeded: tally.outcome === 'waiting' ? tally.stillNeeded : 0,
              deadline: new Date(round.deadline).toISOString(),
              remindersSent: round.remindersSent,
            },
          }
        : {}),
      buyAttempts,
      ...(product ? { product } : {}),
      ...(lastError ? { lastError } : {}),
      timeline: [...timeline],
    };
  }

  function approvalRound(current: ApprovalRoundState) {
    return { requesterId: request.requestedBy, quote: current.quote, tier: current.tier, approvers: current.approvers, votes: current.votes };
  }

  function checkVote(vote: VoteInput, decision: 'approve' | 'reject') {
    return validateApprovalVote(
      {
        status: state,
        requesterId: request.requestedBy,
        quote: round?.quote ?? { monthlyRate: Number.NaN, currency: '' },
        tier: round?.tier ?? null,
        approvers: round?.approvers ?? [],
        votes: round?.votes ?? [],
      },
      { ...vote, decision },
    );
  }

  function acceptVote(vote: ApprovalVote): VoteResult {
    const current = round!;
    current.votes.push(vote);
    journal.push({
      type: 'vote',
      seq: nextSeq(),
      at: Date.now(),
      quoteNumber: current.quoteNumber,
      approverId: vote.approverId,
      decision: vote.decision,
      monthlyRate: vote.monthlyRate,
      currency: vote.currency,
      ...(vote.comment !== undefined ? { comment: vote.comment } : {}),
    });
    const tally = tallyVotes(approvalRound(current));
    return {
      state,
      approvedBy: tally.outcome === 'rejected' ? [] : tally.approvedBy,
      stillNeeded: tally.outcome === 'waiting' ? tally.stillNeeded : 0,
    };
  }

  /**
   * Runs only when an update is first delivered, never on replay: the signature check may use the worker's
   * keys (which rotate) without making history depend on them.
   */
  function requireSignature(action: SignedActionName, signed: unknown): void {
    const check = verifyAction(actionKeys, workflowId, action, signed, Date.now(), acceptedNonces);
    if (!check.ok) throw ApplicationFailure.nonRetryable(check.reason, 'UNSIGNED_ACTION');
  }

  function accept<F>(signed: Signed<F>): F {
    acceptedNonces.add(signed.signature.nonce);
    return signed.fields;
  }

  function voteHandlers(decision: 'approve' | 'reject') {
    return {
      handler: async (signed: Signed<VoteInput>): Promise<VoteResult> => {
        const check = checkVote(accept(signed), decision);
        if (!check.ok) throw ApplicationFailure.nonRetryable(check.reason, check.code);
        const result = acceptVote(check.vote);
        // A decisive vote answers with the state it led to (APPROVED or REJECTED), not the one before. An approval
        // is answered as APPROVED even though the order is validating again by the time the handler resumes.
        if (result.stillNeeded > 0 && decision === 'approve') return result;
        await condition(() => state !== 'AWAITING_APPROVAL');
        return { ...result, state: decision === 'approve' ? 'APPROVED' : state };
      },
      validator: (signed: Signed<VoteInput>): void => {
        requireSignature(decision, signed);
        const check = checkVote(signed.fields, decision);
        if (!check.ok) throw ApplicationFailure.nonRetryable(check.reason, check.code);
      },
    };
  }

  setHandler(statusQuery, statusView);
  for (const [definition, decision] of [
    [approveUpdate, 'approve'],
    [rejectUpdate, 'reject'],
  ] as const) {
    const { handler, validator } = voteHandlers(decision);
    setHandler(definition, handler, { validator });
  }
  setHandler(
    cancelUpdate,
    async (signed) => {
      cancelRequest = accept(signed);
      preBuyScope?.cancel();
      // Answers with the state the cancel led to (CANCELLED), as a decisive vote does.
      await condition(() => FINAL_STATES.has(state));
      return state;
    },
    {
      validator: (signed) => {
        requireSignature('cancel', signed);
        const cancel = signed.fields;
        if (!cancel || typeof cancel.actor !== 'string' || cancel.actor.trim() === '') {
          throw ApplicationFailure.nonRetryable('actor: must name who cancels', 'INVALID_CANCEL');
        }
        if (typeof cancel.reason !== 'string' || cancel.reason.trim() === '') {
          throw ApplicationFailure.nonRetryable('reason: must say why the order is cancelled', 'INVALID_CANCEL');
        }
        if (!CANCELLABLE_STATES.has(state) || cancelRequest) {
          throw ApplicationFailure.nonRetryable(
            cancelRequest ? 'the order is already being cancelled' : `the order is ${state}; it can be cancelled only before buying`,
            'NOT_CANCELLABLE',
          );
        }
      },
    },
  );
  setHandler(
    resolveBuyUpdate,
    async (signed) => {
      buyResolution = accept(signed);
      // Answers with the state the resolution led to (BOUGHT, or on to buying again), as a cancel does.
      await condition(() => state !== 'BUY_UNCERTAIN');
      return state;
    },
    {
      validator: (signed) => {
        requireSignature('resolve-buy', signed);
        validateResolution(signed.fields);
      },
    },
  );

  function validateResolution(resolution: ResolveBuyInput): void {
    const refuse = (message: string, code = 'INVALID_RESOLUTION') => {
      throw ApplicationFailure.nonRetryable(message, code);
    };
    if (state !== 'BUY_UNCERTAIN' || buyResolution) {
      refuse(`the order is ${state}; only an order in BUY_UNCERTAIN can be resolved`, 'NOT_UNCERTAIN');
    }
    if (!resolution || typeof resolution.actor !== 'string' || resolution.actor.trim() === '') refuse('actor: must name who resolves the buy');
    if (resolution.attempt !== buyAttempts) {
      refuse(`attempt: the uncertain buy is attempt ${buyAttempts}, not ${String(resolution.attempt)}; read the order again`, 'NOT_UNCERTAIN');
    }
    if (resolution.outcome === 'created') {
      if (typeof resolution.technicalServiceUid !== 'string' || !UUID_FORM.test(resolution.technicalServiceUid)) {
        refuse('technicalServiceUid: must be the created product\'s UID (UUID form)');
      }
    } else if (resolution.outcome === 'not-created') {
      if (typeof resolution.note !== 'string' || resolution.note.trim() === '') refuse('note: must say how you know the MVE was not created');
    } else {
      refuse('outcome: must be "created" or "not-created"');
    }
  }

  // ---- the order's flow ----

  async function validate(reason: string): Promise<QuoteRecord> {
    moveTo('VALIDATING', ENGINE, reason);
    await api.refreshApiToken({ environment });
    const fresh: QuoteRecord = { ...(await api.validateOrder({ ...context, request, targets: targets! })), quotedAt: Date.now() };
    quote = fresh;
    quotes.push(fresh);
    quoteNumber++;
    journal.push({ type: 'quote', seq: nextSeq(), at: Date.now(), quoteNumber, quote: fresh });
    upsertSearchAttributes([{ key: MONTHLY_RATE, value: fresh.monthlyRate }]);
    return fresh;
  }

  async function awaitApproval(tier: ApprovalTier, current: QuoteRecord, reason: string, policy: ApprovalPolicy): Promise<Ending> {
    const approvers = await records.loadApprovers({ environment });
    const startedAt = Date.now();
    round = { tier, quote: current, quoteNumber, approvers, votes: [], deadline: approvalDeadline(policy, startedAt), remindersSent: 0 };
    const reminders = reminderTimes(policy, startedAt);
    moveTo('AWAITING_APPROVAL', 'policy', reason, { tier: tier.name, roles: tier.roles, approvals: tier.approvals, deadline: new Date(round.deadline).toISOString() });
    const active = round;
    tellApprovers(active, 'awaiting-approval');
    let votesSeen = 0;
    for (;;) {
      const tally = tallyVotes(approvalRound(active));
      if (tally.outcome === 'approved') {
        moveTo('APPROVED', tally.approvedBy.join(', '), `approved by ${tally.approvedBy.join(', ')} at ${current.monthlyRate} ${current.currency}`);
        return undefined;
      }
      if (tally.outcome === 'rejected') {
        return { state: 'REJECTED', actor: tally.rejectedBy, reason: tally.comment ?? `rejected by ${tally.rejectedBy}` };
      }
      votesSeen = active.votes.length;
      const now = Date.now();
      const wakeAt = reminders.find((at) => at > now) ?? active.deadline;
      const woken = await condition(() => active.votes.length !== votesSeen, Math.max(1, wakeAt - now));
      if (woken) continue;
      if (Date.now() >= active.deadline) {
        return { state: 'EXPIRED', actor: 'policy', reason: `no decision by the deadline ${new Date(active.deadline).toISOString()}` };
      }
      active.remindersSent++;
      active.approvers = await records.loadApprovers({ environment });
      note('policy', `reminder ${active.remindersSent}: approval still needed (${tally.stillNeeded} more)`);
      notify('approval-reminder', `approval still needed from ${tally.stillNeeded} more approver(s) with role ${tier.roles.join(' or ')}`);
      tellApprovers(active, 'approval-reminder');
    }
  }

  /** Lookup (first time), validation and the approval gate, until the quote to buy is approved and fresh. */
  async function reachApprovedQuote(policy: ApprovalPolicy, approved: QuoteRecord | undefined): Promise<{ ending: Ending; approved?: QuoteRecord }> {
    if (!targets) {
      moveTo('LOOKING_UP', ENGINE, 'looking up the location and the image');
      await api.refreshApiToken({ environment });
      targets = await api.lookUpOrderTargets({ ...context, request });
      for (const warning of targets.warnings) note(ENGINE, warning);
    }
    // The price charged must be the price approved: a quote is bought only straight after the validate that gave
    // it, with no wait between (an approval round, an uncertain buy resolved); after any wait it is validated again.
    let validatedSinceWait = false;
    for (;;) {
      if (approved && quote && validatedSinceWait && !isQuoteStale(policy, quote.quotedAt, Date.now())) return { ending: undefined, approved };
      const current = await validate(approved ? 'validating again before buying, so the price charged is the price approved' : 'validating the order with the API');
      validatedSinceWait = true;
      if (approved) {
        const decision = requoteDecision(policy, approved, current);
        if (decision.decision === 'buy') {
          moveTo('APPROVED', 'policy', `re-validated at ${current.monthlyRate} ${current.currency}: within the approval given`);
          return { ending: undefined, approved: current };
        }
        const requirement = approvalRequirement(policy, current);
        const tier = requirement.kind === 'needs-approval' ? requirement.tier : tierForRequote(policy);
        const ending = await awaitApproval(tier, current, decision.reason, policy);
        if (ending) return { ending };
        approved = current;
        validatedSinceWait = false;
        continue;
      }
      const requirement = approvalRequirement(policy, current);
      if (requirement.kind === 'auto-approved') {
        moveTo('APPROVED', 'policy', `${current.monthlyRate} ${current.currency} is below the auto-approve line`);
      } else {
        const ending = await awaitApproval(requirement.tier, current, `${current.monthlyRate} ${current.currency} needs the "${requirement.tier.name}" tier (${requirement.cause})`, policy);
        if (ending) return { ending };
        validatedSinceWait = false;
      }
      approved = current;
    }
  }

  async function preBuy(policy: ApprovalPolicy, approved: QuoteRecord | undefined): Promise<{ ending: Ending; approved?: QuoteRecord }> {
    const scope = new CancellationScope();
    preBuyScope = scope;
    try {
      if (cancelRequest) scope.cancel();
      return await scope.run(() => reachApprovedQuote(policy, approved));
    } catch (error) {
      if (isCancellation(error) || cancelRequest) {
        const actor = cancelRequest?.actor ?? 'temporal';
        return { ending: { state: 'CANCELLED', actor, reason: cancelRequest?.reason ?? 'the workflow was cancelled' } };
      }
      const summary = noteError(error, `the order could not be ${state === 'LOOKING_UP' ? 'looked up' : 'validated'}`);
      return { ending: { state: 'FAILED', actor: ENGINE, reason: summary.message } };
    } finally {
      preBuyScope = undefined;
    }
  }

  /** Buys once. Retries only what provably did not happen; anything ambiguous waits for ops. */
  async function buy(): Promise<'bought' | 'failed' | 'revalidate'> {
    moveTo('BUYING', ENGINE, `buying at ${quote!.monthlyRate} ${quote!.currency}`);
    for (let tries = 1; ; tries++) {
      const attempt = ++buyAttempts;
      journal.push({ type: 'buy-intent', seq: nextSeq(), at: Date.now(), attempt });
      await journal.flush(); // write-ahead: the attempt is in Postgres before the request can leave
      if (buyIntentRefusal) {
        setLastError(buyIntentRefusal);
        moveTo('FAILED', ENGINE, `not buying: ${buyIntentRefusal.message}`);
        return 'failed';
      }
      const outcome = await attemptBuy(attempt);
      journal.push({
        type: 'buy-outcome',
        seq: nextSeq(),
        at: Date.now(),
        attempt,
        outcome: outcome.outcome,
        ...(outcome.outcome === 'created' ? { product: outcome.product } : { error: outcome.error }),
      });
      if (outcome.outcome === 'created') {
        recordProduct(outcome.product, ENGINE);
        return 'bought';
      }
      setLastError(outcome.error);
      if (outcome.outcome === 'not-created') {
        if (!outcome.retryable || tries >= maxBuyAttempts) {
          moveTo('FAILED', ENGINE, `the buy was not carried out: ${outcome.error.message}`);
          return 'failed';
        }
        const delay = outcome.retryAfterMs ?? Math.min(60_000, 2_000 * 2 ** (tries - 1));
        note(ENGINE, `buy attempt ${attempt} was not carried out (${outcome.error.type}); trying again in ${Math.round(delay / 1000)} s`);
        await sleep(delay);
        continue;
      }
      moveTo('BUY_UNCERTAIN', ENGINE, `the buy may or may not have been carried out: ${outcome.error.message}`);
      const resolution = await awaitBuyResolution();
      journal.push({
        type: 'buy-outcome',
        seq: nextSeq(),
        at: Date.now(),
        attempt,
        outcome: resolution.outcome,
        resolvedBy: resolution.actor,
        ...(resolution.outcome === 'created'
          ? { product: { technicalServiceUid: resolution.technicalServiceUid, provisioningStatus: resolution.provisioningStatus ?? 'UNKNOWN' } }
          : {}),
      });
      if (resolution.outcome === 'created') {
        const resolved: ProductRecord = {
          technicalServiceUid: resolution.technicalServiceUid,
          provisioningStatus: resolution.provisioningStatus ?? 'UNKNOWN',
        };
        recordProduct(resolved, resolution.actor, resolution.note);
        return 'bought';
      }
      note(resolution.actor, `resolved: the MVE was not created (${resolution.note})`);
      return 'revalidate';
    }
  }

  async function attemptBuy(attempt: number): Promise<BuyOutcome> {
    try {
      await api.refreshApiToken({ environment });
    } catch (error) {
      // Nothing was sent: a token that cannot be had is a clean "not created".
      return { outcome: 'not-created', retryable: false, error: summarise(error, 'no API token') };
    }
    try {
      return await buying.buyOrder({ ...context, request, targets: targets!, attempt });
    } catch (error) {
      return { outcome: 'uncertain', error: summarise(error, 'the buy activity did not report back (worker lost or timed out)') };
    }
  }

  async function awaitBuyResolution(): Promise<ResolveBuyInput> {
    let reminders = 0;
    while (!(await condition(() => buyResolution !== undefined, buyUncertainReminderMs))) {
      reminders++;
      note(ENGINE, `reminder ${reminders}: the buy outcome is unknown; ops must check and resolve it`);
      notify('buy-uncertain-reminder', 'the buy outcome is unknown: check the provider and resolve the order');
    }
    const resolution = buyResolution!;
    buyResolution = undefined;
    return resolution;
  }

  function recordProduct(created: ProductRecord, actor: string, comment?: string): void {
    product = created;
    journal.push({ type: 'product', seq: nextSeq(), at: Date.now(), product: created, actor });
    moveTo('BOUGHT', actor, comment ?? `created ${created.technicalServiceUid} (${created.provisioningStatus})`);
  }

  async function finish(ending: NonNullable<Ending> | { state: 'BOUGHT' | 'FAILED'; actor: string; reason: string }): Promise<OrderOutcome> {
    if (state !== ending.state) moveTo(ending.state, ending.actor, ending.reason);
    // The ending does not wait on the ticket system: what it has not taken within a few minutes is noted and dropped.
    if (!(await notifications.flushWithin(FINAL_NOTIFICATION_WAIT_MS))) {
      note(ENGINE, `the order ended with ${notifications.unsent} notification(s) the ticket system did not take; see the timeline for what changed`);
    }
    await journal.flush();
    return {
      state: ending.state,
      reason: ending.reason,
      ...(quote ? { quote } : {}),
      ...(product ? { product } : {}),
    };
  }

  journal.start();
  notifications.start();
  upsertSearchAttributes([
    { key: TICKET_ID, value: request.ticketId },
    { key: ENVIRONMENT, value: environment },
    { key: ORDER_STATUS, value: state },
  ]);
  journal.push({ type: 'received', seq: nextSeq(), at: Date.now(), request });
  timeline.push({ seq, at: new Date(Date.now()).toISOString(), state, actor: request.requestedBy, reason: 'order received' });
  notify('received', 'order received');

  // The policy is the workers' own, read once now and kept for the whole order: nothing submitted can change it.
  let policy: ApprovalPolicy;
  try {
    governing = await records.loadApprovalPolicy({ environment });
    policy = parseApprovalPolicy(governing.policy);
  } catch (error) {
    return finish({ state: 'FAILED', actor: ENGINE, reason: `invalid approval policy: ${messageOf(error)}` });
  }
  journal.push({ type: 'policy', seq: nextSeq(), at: Date.now(), version: governing.version, hash: governing.hash, policy });
  if (governing.approverWebhook) approverOutbox.start();

  let approved: QuoteRecord | undefined;
  for (;;) {
    const reached = await preBuy(policy, approved);
    if (reached.ending) return finish(reached.ending);
    approved = reached.approved;
    const bought = await CancellationScope.nonCancellable(buy);
    if (bought === 'bought') return finish({ state: 'BOUGHT', actor: ENGINE, reason: `bought ${product!.technicalServiceUid}` });
    if (bought === 'failed') return finish({ state: 'FAILED', actor: ENGINE, reason: lastError?.message ?? 'the buy failed' });
  }
}

/** After an automatic approval, a re-quote that asks again goes to the lowest tier. */
function tierForRequote(policy: ApprovalPolicy): ApprovalTier {
  const tier = policy.tiers[0]!;
  return { index: 0, name: tier.name, roles: [...tier.roles], approvals: tier.approvals };
}
