/** Public face of the order's journal writer: the journal's entries, written to Postgres in batches, in order. */
export { BuyIntentRefused, createJournalWriter } from './writer.js';
export { TRUNCATED } from './record-values.js';
export type { JournalRun, JournalWriter, JournalWriterDeps } from './types.js';
