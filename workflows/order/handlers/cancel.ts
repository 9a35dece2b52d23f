import { CANCELLABLE_STATES, cancelRefusal, FINAL_STATES, type OrderState } from '../../../domain/lifecycle/index.js';
import type { CancelInput } from '../messages.js';
import type { OrderRun } from '../run.js';
import type { Signed } from '../signed-action.js';
import { refusal, waitFor } from './answers.js';
import type { Signatures } from './signatures.js';

/** A cancel, which ends everything before the buy; answered with the state it led to (CANCELLED), as a decisive vote is. */
export function cancelHandler(run: OrderRun, signatures: Signatures) {
  const { inbox, recorder } = run;
  return async (signed: Signed<CancelInput>): Promise<OrderState> => {
    inbox.cancel = signatures.accept(signed);
    inbox.beforeBuy?.cancel();
    await waitFor(() => FINAL_STATES.has(recorder.progress.state));
    return recorder.progress.state;
  };
}

/** Refuses a cancel that is unsigned, says not who or why, or comes once the order cannot be cancelled. */
export function cancelValidator(run: OrderRun, signatures: Signatures) {
  const { inbox, recorder } = run;
  return (signed: Signed<CancelInput>): void => {
    signatures.require('cancel', signed);
    const cancel = signed.fields;
    if (!cancel || typeof cancel.actor !== 'string' || cancel.actor.trim() === '') {
      throw refusal('actor: must name who cancels', 'INVALID_CANCEL');
    }
    if (typeof cancel.reason !== 'string' || cancel.reason.trim() === '') {
      throw refusal('reason: must say why the order is cancelled', 'INVALID_CANCEL');
    }
    const { state } = recorder.progress;
    if (!CANCELLABLE_STATES.has(state) || inbox.cancel) {
      throw refusal(
        inbox.cancel
          ? 'the order is already being cancelled'
          : cancelRefusal(state, recorder.progress.product?.technicalServiceUid),
        'NOT_CANCELLABLE',
      );
    }
  };
}
