import {
  ApplicationFailure,
  CancellationScope,
  condition,
  setDefaultSignalHandler,
  setHandler,
} from '@temporalio/workflow';
import { refusedPayloadReason } from '../../codec/refused-payload.js';
import { CANCELLABLE_STATES, FINAL_STATES } from '../../domain/lifecycle/index.js';
import { tallyVotes, validateApprovalVote } from '../../domain/approval/index.js';
import { workerActionKeys } from './action-keys.js';
import {
  approveUpdate,
  cancelUpdate,
  rejectUpdate,
  resolveBuyUpdate,
  statusQuery,
  type ResolveBuyInput,
  type VoteInput,
  type VoteResult,
} from './messages.js';
import { checkResolution } from './product-check.js';
import { roundFacts, statusView } from './progress.js';
import { ENGINE } from './recorder.js';
import type { OrderRun } from './run.js';
import { verifyAction, type Signed, type SignedActionName } from './signed-action.js';

const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A refused message, as its sender reads it: the reason and a code, and no stack trace (nothing of the workers' code
 * reaches whoever sent it).
 */
function refusal(message: string, code: string): ApplicationFailure {
  const failure = ApplicationFailure.nonRetryable(message, code);
  failure.stack = '';
  return failure;
}

/**
 * Waits in a handler as the order does: a Temporal cancellation request (which the order ignores, workflow.ts) does
 * not end the wait, so the update is answered with what the order did.
 */
function waitFor(done: () => boolean): Promise<void> {
  return CancellationScope.nonCancellable(() => condition(done));
}

/**
 * The order's query and updates. Every update must carry the HTTP API's signature; validators refuse what is
 * unsigned, forged, replayed or not allowed in the order's state, before anything reaches history.
 */
export function installHandlers(run: OrderRun): void {
  const { recorder, inbox } = run;
  const { progress, input } = recorder;
  const { workflowId, runId: firstRunId } = recorder.identity;
  const actionKeys = workerActionKeys();

  /**
   * Runs only when an update is first delivered, never on replay: the signature check may use the worker's keys
   * (which rotate) without making history depend on them.
   */
  function requireSignature(action: SignedActionName, signed: unknown): void {
    const unreadable = refusedPayloadReason(signed);
    if (unreadable !== undefined) throw refusal(`the ${action} could not be read: ${unreadable}`, 'UNREADABLE_MESSAGE');
    const check = verifyAction(
      actionKeys,
      { workflowId, firstRunId },
      action,
      signed,
      Date.now(),
      new Set(progress.acceptedNonces),
    );
    if (!check.ok) throw refusal(check.reason, 'UNSIGNED_ACTION');
  }

  function accept<F>(signed: Signed<F>): F {
    progress.acceptedNonces.push(signed.signature.nonce);
    return signed.fields;
  }

  function checkVote(vote: VoteInput, decision: 'approve' | 'reject') {
    const { round } = progress;
    return validateApprovalVote(
      {
        status: progress.state,
        requesterId: input.request.requestedBy,
        quote: round?.quote ?? { monthlyRate: Number.NaN, currency: '' },
        tier: round?.tier ?? null,
        approvers: round?.approvers ?? [],
        votes: round?.votes ?? [],
      },
      { ...vote, decision },
    );
  }

  function voteHandler(decision: 'approve' | 'reject') {
    return async (signed: Signed<VoteInput>): Promise<VoteResult> => {
      const check = checkVote(accept(signed), decision);
      if (!check.ok) throw refusal(check.reason, check.code);
      const round = progress.round!;
      round.votes.push(check.vote);
      recorder.recordVote(check.vote, round.quoteNumber, signed);
      const tally = tallyVotes(roundFacts(input.request.requestedBy, round));
      const result: VoteResult = {
        state: progress.state,
        approvedBy: tally.outcome === 'rejected' ? [] : tally.approvedBy,
        stillNeeded: tally.outcome === 'waiting' ? tally.stillNeeded : 0,
      };
      // A decisive vote answers with the state it led to (APPROVED or REJECTED), not the one before. An approval
      // is answered as APPROVED even though the order is validating again by the time the handler resumes.
      if (result.stillNeeded > 0 && decision === 'approve') return result;
      await waitFor(() => progress.state !== 'AWAITING_APPROVAL');
      return { ...result, state: decision === 'approve' ? 'APPROVED' : progress.state };
    };
  }

  function voteValidator(decision: 'approve' | 'reject') {
    return (signed: Signed<VoteInput>): void => {
      requireSignature(decision, signed);
      const check = checkVote(signed.fields, decision);
      if (!check.ok) throw refusal(check.reason, check.code);
    };
  }

  /** A 'created' resolution stands only with a product the provider shows as this order's; else it is refused. */
  async function checked(resolution: ResolveBuyInput): Promise<ResolveBuyInput> {
    if (resolution.outcome !== 'created') return resolution;
    inbox.checkingResolution = true;
    try {
      const outcome = await checkResolution(run, resolution);
      if ('code' in outcome) throw refusal(outcome.reason, outcome.code);
      return outcome;
    } finally {
      inbox.checkingResolution = false;
    }
  }

  setHandler(statusQuery, () => statusView(progress, input, workflowId, firstRunId));
  setHandler(approveUpdate, voteHandler('approve'), { validator: voteValidator('approve') });
  setHandler(rejectUpdate, voteHandler('reject'), { validator: voteValidator('reject') });
  setHandler(
    cancelUpdate,
    async (signed) => {
      inbox.cancel = accept(signed);
      inbox.beforeBuy?.cancel();
      // Answers with the state the cancel led to (CANCELLED), as a decisive vote does.
      await waitFor(() => FINAL_STATES.has(progress.state));
      return progress.state;
    },
    {
      validator: (signed) => {
        requireSignature('cancel', signed);
        const cancel = signed.fields;
        if (!cancel || typeof cancel.actor !== 'string' || cancel.actor.trim() === '') {
          throw refusal('actor: must name who cancels', 'INVALID_CANCEL');
        }
        if (typeof cancel.reason !== 'string' || cancel.reason.trim() === '') {
          throw refusal('reason: must say why the order is cancelled', 'INVALID_CANCEL');
        }
        if (!CANCELLABLE_STATES.has(progress.state) || inbox.cancel) {
          throw refusal(
            inbox.cancel
              ? 'the order is already being cancelled'
              : `the order is ${progress.state}; it can be cancelled only before buying`,
            'NOT_CANCELLABLE',
          );
        }
      },
    },
  );
  setHandler(
    resolveBuyUpdate,
    async (signed) => {
      const resolution = accept(signed);
      inbox.resolution = run.changes.checksResolvedProduct ? await checked(resolution) : resolution;
      // Answers with the state the resolution led to (BOUGHT, or on to buying again), as a cancel does.
      await waitFor(() => progress.state !== 'BUY_UNCERTAIN');
      return progress.state;
    },
    {
      validator: (signed) => {
        requireSignature('resolve-buy', signed);
        validateResolution(run, signed.fields);
      },
    },
  );
}

/**
 * Orders take no signals. One the workers could not read (the codec refused it as data) is noted on the order, as
 * Temporal's own cancellation is; any other is ignored, as it always was. Installed once the run is admitted, so a
 * refused run notes nothing.
 */
export function noteUnreadableSignals(run: OrderRun): void {
  const { recorder } = run;
  setDefaultSignalHandler((_name, ...args) => {
    const unreadable = args.map(refusedPayloadReason).find((reason) => reason !== undefined);
    if (unreadable === undefined) return;
    recorder.note(ENGINE, `a signal the workers could not read was ignored: ${unreadable}`);
    recorder.checkpoint();
  });
}

function validateResolution(run: OrderRun, resolution: ResolveBuyInput): void {
  const { progress } = run.recorder;
  const refuse = (message: string, code = 'INVALID_RESOLUTION') => {
    throw refusal(message, code);
  };
  if (progress.state !== 'BUY_UNCERTAIN' || run.inbox.resolution) {
    refuse(`the order is ${progress.state}; only an order in BUY_UNCERTAIN can be resolved`, 'NOT_UNCERTAIN');
  }
  if (run.inbox.checkingResolution) {
    refuse('another resolution of this buy is being checked at the provider; read the order again', 'NOT_UNCERTAIN');
  }
  if (!resolution || typeof resolution.actor !== 'string' || resolution.actor.trim() === '')
    refuse('actor: must name who resolves the buy');
  if (resolution.attempt !== progress.buyAttempts) {
    refuse(
      `attempt: the uncertain buy is attempt ${progress.buyAttempts}, not ${String(resolution.attempt)}; read the order again`,
      'NOT_UNCERTAIN',
    );
  }
  if (resolution.outcome === 'created') {
    if (typeof resolution.technicalServiceUid !== 'string' || !UUID_FORM.test(resolution.technicalServiceUid)) {
      refuse("technicalServiceUid: must be the created product's UID (UUID form)");
    }
  } else if (resolution.outcome === 'not-created') {
    if (typeof resolution.note !== 'string' || resolution.note.trim() === '')
      refuse('note: must say how you know the MVE was not created');
  } else {
    refuse('outcome: must be "created" or "not-created"');
  }
}
