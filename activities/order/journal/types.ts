import type { OrdersRepository, Repository } from '../../../infra/db/index.js';
import type { Keyring } from '../../../codec/index.js';
import type { PoliciesInForce } from '../../../domain/approval/index.js';
import type { JournalEntry } from '../../../workflows/order/activity-types.js';

export interface JournalWriterDeps {
  repository: Repository;
  /** The action keys (MVE_ACTION_KEY): a vote is recorded only with the HTTP API's signature over it. */
  actionKeys: Keyring;
  /** The policies this worker serves: their rules, for a policy entry whose hash no worker stored (policy.ts). */
  policies?: PoliciesInForce;
}

/** The order run a journal batch is written for. */
export interface JournalRun {
  workflowId: string;
  /** Recorded with the order and each buy attempt. */
  runId: string | undefined;
}

/** Writes a batch of the order's journal to Postgres. */
export type JournalWriter = (run: JournalRun, entries: JournalEntry[]) => Promise<void>;

/** Where one entry is written: the batch's connection, for this run, with what the writer was built from. */
export interface EntryTarget {
  records: OrdersRepository;
  run: JournalRun;
  deps: JournalWriterDeps;
}

export type TransitionEntry = Extract<JournalEntry, { type: 'transition' }>;

/** Each entry type's own record. */
export type EntryOf<Type extends JournalEntry['type']> = Extract<JournalEntry, { type: Type }>;
