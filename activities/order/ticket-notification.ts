/**
 * A ticket-system notification as the order's records tell it: where it goes (the callback URL the request was
 * recorded with) and what it says (the change recorded at a journal sequence number, the state, quote and product
 * then). Nothing here comes from whoever asked for the notification, so a caller can at most have a true change told
 * again to the ticket system the order names.
 */
import type { OrderEventRecord, OrderNoteRecord, OrderView } from '../../infra/db/index.js';
import type {
  ProductRecord,
  TicketNoteDetails,
  TicketNoteEvent,
  TicketNotification,
} from '../../workflows/order/activity-types.js';

/** What the records say of a notification: send it, send nothing (and why), or not yet (the journal is behind). */
export type RecordedNotification =
  { send: { callbackUrl: string; notification: TicketNotification } } | { nothing: string } | { notYet: string };

/** The journal's first entry (the order received) is recorded as the order's event 0, written with the order. */
const RECEIVED_SEQ = 1;

const NOTE_EVENTS: ReadonlySet<string> = new Set<TicketNoteEvent>([
  'approval-reminder',
  'approvers-missing',
  'approvers-found',
  'buy-uncertain-reminder',
  'provisioning-changed',
  'provisioning-slow',
]);

interface RecordedChange {
  at: string;
  /** Undefined: a note the order did not tell the ticket system of. */
  event: string | undefined;
  message: string;
}

/** The notification of change `seq` of the order `view` holds (the records of `workflowId`). */
export function recordedNotification(workflowId: string, view: OrderView, seq: number): RecordedNotification {
  const callbackUrl = view.order.request['callbackUrl'];
  if (typeof callbackUrl !== 'string') return { nothing: 'the order was recorded without a callback URL' };
  const change = changeAt(view, seq);
  if (!change) return { notYet: `the records of ${workflowId} do not show change ${seq} yet` };
  if (!change.event) return { nothing: `change ${seq} of ${workflowId} is a note the ticket system is not told of` };
  const quote = quoteAt(view, change.at);
  const product = productAt(view, seq);
  return {
    send: {
      callbackUrl,
      notification: {
        workflowId,
        ticketId: view.order.ticketId,
        seq,
        at: change.at,
        state: stateAt(view.events, seq),
        event: change.event,
        message: change.message,
        ...(quote ? { quote } : {}),
        ...(product ? { product } : {}),
      },
    },
  };
}

function changeAt(view: OrderView, seq: number): RecordedChange | undefined {
  const event =
    view.events.find((recorded) => recorded.sequence === seq) ??
    (seq === RECEIVED_SEQ ? view.events.find((recorded) => recorded.sequence === 0) : undefined);
  if (event) {
    return { at: event.at, event: event.sequence === 0 ? 'received' : 'state-changed', message: event.reason ?? '' };
  }
  const note = view.notes.find((recorded) => recorded.sequence === seq);
  return note && { at: note.at, event: toldAs(note), message: note.message };
}

function toldAs(note: OrderNoteRecord): TicketNoteEvent | undefined {
  const event = (note.details as Partial<TicketNoteDetails>).ticketEvent;
  return typeof event === 'string' && NOTE_EVENTS.has(event) ? event : undefined;
}

/** The state the order was in at `seq`: where its last recorded change up to it moved it (event 0 is always there). */
function stateAt(events: OrderEventRecord[], seq: number): TicketNotification['state'] {
  return events.filter((event) => event.sequence <= seq).at(-1)!.to;
}

/** The quote the records hold, when it was made by the time of the change (they keep only the latest quote). */
function quoteAt(view: OrderView, at: string): TicketNotification['quote'] {
  const { quote } = view.order;
  if (!quote || Date.parse(quote.quotedAt) > Date.parse(at)) return undefined;
  return { monthlyRate: Number(quote.monthlyRate), currency: quote.currency };
}

/**
 * The product once the order was bought, with the provisioning status it had at `seq`: the records keep the latest
 * status, and each change of it as a note (its details name the status and the one before).
 */
function productAt(view: OrderView, seq: number): ProductRecord | undefined {
  const { product } = view.order;
  const bought = view.events.some((event) => event.sequence <= seq && event.to === 'BOUGHT');
  if (!product || !bought) return undefined;
  const changes = view.notes.filter(isProvisioningChange);
  const status =
    changes.filter((note) => note.sequence <= seq).at(-1)?.details.provisioningStatus ??
    changes.find((note) => note.sequence > seq)?.details.previous ??
    product.provisioningStatus;
  return { technicalServiceUid: product.technicalServiceUid, provisioningStatus: status };
}

type ProvisioningChange = OrderNoteRecord & { details: { provisioningStatus: string; previous: string } };

function isProvisioningChange(note: OrderNoteRecord): note is ProvisioningChange {
  return typeof note.details['provisioningStatus'] === 'string' && typeof note.details['previous'] === 'string';
}
