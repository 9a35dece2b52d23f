/**
 * A run's history size as the real server counts it (its execution stats' history size: what
 * DescribeWorkflowExecution and visibility report as historySizeBytes, and WorkflowTaskStarted carries): the bytes
 * of its events as stored, each a protobuf HistoryEvent inside a batch. Counted incrementally: an event is encoded
 * once, the first time the size is asked for after it was appended (the history limits ask after every change).
 *
 * From that size and the history's length, a workflow task suggests continuing as new, as the real server's does.
 */
import type { Execution } from '../execution.js';
import { encodeEvent } from '../persistence/codec.js';
import { api } from '../proto.js';
import type { Limits } from './limits.js';

const { SuggestContinueAsNewReason } = api.enums.v1;

interface Counted {
  events: number;
  bytes: number;
}
const counted = new WeakMap<Execution, Counted>();

/** An event's share of a stored batch: field tag, length prefix, the encoded event. */
function storedSize(eventBytes: number): number {
  let lengthBytes = 1;
  while (eventBytes >= 128 ** lengthBytes) lengthBytes++;
  return 1 + lengthBytes + eventBytes;
}

export function historySizeBytes(execution: Execution): number {
  let count = counted.get(execution);
  if (!count) counted.set(execution, (count = { events: 0, bytes: 0 }));
  const { history } = execution;
  for (; count.events < history.length; count.events++)
    count.bytes += storedSize(encodeEvent(history.at(count.events)!).length);
  return count.bytes;
}

/** The history was cut back to `events` events, whose size was `bytes` (a change undone by the history limits). */
export function rewindHistorySize(execution: Execution, events: number, bytes: number): void {
  counted.set(execution, { events, bytes });
}

/**
 * What a WorkflowTaskStarted event (id `startedEventId`) says of the history before it: its size, and whether the
 * workflow should continue as new — when the history has reached either of the limits' thresholds.
 */
export function historySizeInfo(execution: Execution, limits: Limits, startedEventId: number) {
  const bytes = historySizeBytes(execution);
  const reasons: number[] = [];
  if (bytes >= limits.historySizeSuggestContinueAsNew)
    reasons.push(SuggestContinueAsNewReason.SUGGEST_CONTINUE_AS_NEW_REASON_HISTORY_SIZE_TOO_LARGE);
  if (startedEventId >= limits.historyCountSuggestContinueAsNew)
    reasons.push(SuggestContinueAsNewReason.SUGGEST_CONTINUE_AS_NEW_REASON_TOO_MANY_HISTORY_EVENTS);
  return { historySizeBytes: bytes, suggestContinueAsNew: reasons.length > 0, suggestContinueAsNewReasons: reasons };
}
