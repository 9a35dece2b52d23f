import { refusedPayloadReason } from '../../../codec/refused-payload.js';
import { workerActionKeys } from '../action-keys.js';
import type { OrderRun } from '../run.js';
import { verifyAction, type Signed, type SignedActionName } from '../signed-action.js';
import { refusal } from './answers.js';

/** The signature checks of one run's updates: every update must carry the HTTP API's signature. */
export interface Signatures {
  /**
   * Refuses what is unreadable, unsigned, forged or replayed. Runs only when an update is first delivered (in its
   * validator), never on replay: the check may use the worker's keys (which rotate) without making history depend
   * on them.
   */
  require(action: SignedActionName, signed: unknown): void;
  /** The fields of an update its validator let in; its nonce is spent, so the same message cannot come again. */
  accept<F>(signed: Signed<F>): F;
}

export function signaturesOf(run: OrderRun): Signatures {
  const { progress } = run.recorder;
  const { workflowId, runId: firstRunId } = run.recorder.identity;
  const actionKeys = workerActionKeys();
  return {
    require(action, signed) {
      const unreadable = refusedPayloadReason(signed);
      if (unreadable !== undefined)
        throw refusal(`the ${action} could not be read: ${unreadable}`, 'UNREADABLE_MESSAGE');
      const check = verifyAction(
        actionKeys,
        { workflowId, firstRunId },
        action,
        signed,
        Date.now(),
        new Set(progress.acceptedNonces),
      );
      if (!check.ok) throw refusal(check.reason, 'UNSIGNED_ACTION');
    },
    accept(signed) {
      progress.acceptedNonces.push(signed.signature.nonce);
      return signed.fields;
    },
  };
}
