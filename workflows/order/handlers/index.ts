/**
 * The order's query and updates, one module per message. Every update must carry the HTTP API's signature; validators
 * refuse what is unsigned, forged, replayed or not allowed in the order's state, before anything reaches history.
 */
import { setHandler } from '@temporalio/workflow';
import { approveUpdate, cancelUpdate, rejectUpdate, resolveBuyUpdate, statusQuery } from '../messages.js';
import { statusView } from '../progress.js';
import type { OrderRun } from '../run.js';
import { cancelHandler, cancelValidator } from './cancel.js';
import { resolveBuyHandler, resolveBuyValidator } from './resolve-buy.js';
import { signaturesOf } from './signatures.js';
import { voteHandler, voteValidator } from './votes.js';

/** Installs the status query and the signed updates (approve, reject, cancel, resolveBuy) on the run. */
export function installHandlers(run: OrderRun): void {
  const { progress, input, identity } = run.recorder;
  const signatures = signaturesOf(run);
  setHandler(statusQuery, () => statusView(progress, input, identity.workflowId, identity.runId));
  setHandler(approveUpdate, voteHandler(run, signatures, 'approve'), {
    validator: voteValidator(run, signatures, 'approve'),
  });
  setHandler(rejectUpdate, voteHandler(run, signatures, 'reject'), {
    validator: voteValidator(run, signatures, 'reject'),
  });
  setHandler(cancelUpdate, cancelHandler(run, signatures), { validator: cancelValidator(run, signatures) });
  setHandler(resolveBuyUpdate, resolveBuyHandler(run, signatures), { validator: resolveBuyValidator(run, signatures) });
}

export { noteUnreadableSignals } from './unreadable-signals.js';
