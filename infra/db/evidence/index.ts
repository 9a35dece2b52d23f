import type { Sql } from '../connection.js';
import { createAdmittedRuns, type AdmittedRuns } from './admitted-runs.js';
import { createBuyEvidenceReads, type BuyEvidenceReads } from './buy-evidence.js';
import { createRefusedCalls, type RefusedCalls } from './refused-calls.js';
import { createRunRecoveries, type RunRecoveries } from './recoveries.js';
import { createWorkerQuotes, type WorkerQuotes } from './worker-quotes.js';

export type { AdmittedRun, AdmitRunOutcome } from './admitted-runs.js';
export type { BuyEvidenceRecord } from './buy-evidence.js';
export type { RefusedCallRecord } from './refused-calls.js';
export type { RunRecoveryRecord } from './recoveries.js';
export type { WorkerQuoteRecord } from './worker-quotes.js';

/**
 * What the workers' activities check before they act (docs/security.md, "Every activity is an entry point"): which
 * runs were admitted for a ticket, the quotes the workers obtained themselves, and what they refused to do.
 */
export type EvidenceRepository = AdmittedRuns & RefusedCalls & WorkerQuotes & RunRecoveries & BuyEvidenceReads;

export function createEvidenceRepository(sql: Sql): EvidenceRepository {
  return {
    ...createAdmittedRuns(sql),
    ...createRefusedCalls(sql),
    ...createWorkerQuotes(sql),
    ...createRunRecoveries(sql),
    ...createBuyEvidenceReads(sql),
  };
}
