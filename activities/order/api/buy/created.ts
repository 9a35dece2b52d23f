import type { BuyAttemptRecord, OrderView } from '../../../../infra/db/index.js';
import type { JournalWriter } from '../../journal/index.js';
import type { RunReference } from '../../order-requests.js';
import type { BuyInput, BuyOutcome, JournalEntry, ProductRecord } from '../../../../workflows/order/activity-types.js';
import { writeJournalInTime } from './journal.js';

/** The entries of a created MVE, in the numbers the workflow reserved for them: its outcome, the product, BOUGHT. */
export function createdEntries(
  attempt: number,
  product: ProductRecord,
  { seq, actor }: BuyInput['recordCreated'],
  at: number,
): JournalEntry[] {
  return [
    { type: 'buy-outcome', seq: seq + 1, at, attempt, outcome: 'created', product },
    { type: 'product', seq: seq + 2, at, product, actor },
    {
      type: 'transition',
      seq: seq + 3,
      at,
      from: 'BUYING',
      to: 'BOUGHT',
      actor,
      reason: `created ${product.technicalServiceUid} (${product.provisioningStatus})`,
    },
  ];
}

/**
 * What a created MVE adds to the order's journal, written when the database answers in time. Never thrown: the MVE
 * exists whatever the records say, so a write that fails leaves the entries to the workflow's own journal.
 */
export async function recordCreated(
  writeJournal: JournalWriter,
  run: RunReference,
  product: ProductRecord,
  { attempt, recordCreated: reserved }: Pick<BuyInput, 'attempt' | 'recordCreated'>,
): Promise<{ entries: JournalEntry[]; written: boolean }> {
  const entries = createdEntries(attempt, product, reserved, Date.now());
  try {
    await writeJournalInTime(writeJournal, run, entries);
    return { entries, written: true };
  } catch {
    return { entries, written: false };
  }
}

/**
 * A created MVE an earlier run of this buy recorded in the numbers reserved now (the same workflow task, run again):
 * the attempt, the order's product and its move to BOUGHT all agree, so it is bought, and nothing is written again.
 */
export function recordedCreation(
  order: OrderView,
  earlier: BuyAttemptRecord,
  reserved: BuyInput['recordCreated'],
): Extract<BuyOutcome, { outcome: 'created' }> | undefined {
  const uid = earlier.technicalServiceUid;
  const bought = order.events.find((event) => event.sequence === reserved.seq + 3);
  if (
    earlier.outcome !== 'created' ||
    uid === null ||
    order.order.product?.technicalServiceUid !== uid ||
    bought?.from !== 'BUYING' ||
    bought.to !== 'BOUGHT'
  ) {
    return undefined;
  }
  const product = { technicalServiceUid: uid, provisioningStatus: order.order.product.provisioningStatus };
  const entries = createdEntries(earlier.attempt, product, reserved, Date.parse(bought.at));
  return { outcome: 'created', product, journal: { entries, written: true } };
}
