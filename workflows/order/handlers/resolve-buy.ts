import type { OrderState } from '../../../domain/lifecycle/index.js';
import type { ResolveBuyInput } from '../messages.js';
import { checkResolution } from '../product-check.js';
import type { OrderRun } from '../run.js';
import type { Signed } from '../signed-action.js';
import { refusal, waitFor } from './answers.js';
import type { Signatures } from './signatures.js';

const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Ops' resolution of an uncertain buy; answered with the state it led to (BOUGHT, or on to buying again), as a cancel
 * is.
 */
export function resolveBuyHandler(run: OrderRun, signatures: Signatures) {
  const { inbox, recorder } = run;
  return async (signed: Signed<ResolveBuyInput>): Promise<OrderState> => {
    const resolution = signatures.accept(signed);
    inbox.resolution = run.changes.checksResolvedProduct ? await checked(run, resolution) : resolution;
    await waitFor(() => recorder.progress.state !== 'BUY_UNCERTAIN');
    return recorder.progress.state;
  };
}

/** Refuses a resolution that is unsigned, comes when there is no uncertain buy to settle, or says not how it ended. */
export function resolveBuyValidator(run: OrderRun, signatures: Signatures) {
  return (signed: Signed<ResolveBuyInput>): void => {
    signatures.require('resolve-buy', signed);
    validateResolution(run, signed.fields);
  };
}

/** A 'created' resolution stands only with a product the provider shows as this order's; else it is refused. */
async function checked(run: OrderRun, resolution: ResolveBuyInput): Promise<ResolveBuyInput> {
  if (resolution.outcome !== 'created') return resolution;
  run.inbox.checkingResolution = true;
  try {
    const outcome = await checkResolution(run, resolution);
    if ('code' in outcome) throw refusal(outcome.reason, outcome.code);
    return outcome;
  } finally {
    run.inbox.checkingResolution = false;
  }
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
