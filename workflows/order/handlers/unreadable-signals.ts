import { setDefaultSignalHandler } from '@temporalio/workflow';
import { refusedPayloadReason } from '../../../codec/refused-payload.js';
import { ENGINE } from '../recorder.js';
import type { OrderRun } from '../run.js';

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
