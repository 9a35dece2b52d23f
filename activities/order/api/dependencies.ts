import { ApplicationFailure } from '@temporalio/activity';
import type { ApiClient } from '../../../infra/ordering-api/index.js';
import type { CatalogLookups } from '../../../infra/catalog/index.js';
import type { Repository } from '../../../infra/db/index.js';
import type { KindMap } from '../../../domain/index.js';
import type { BuyEvidenceDeps } from '../buy-evidence.js';
import type { JournalWriter } from '../journal/index.js';
import type { RecentOrderRequests } from '../order-requests.js';
import type { Environment, OrderActivities } from '../../../workflows/order/activity-types.js';

/** What the API activities are built from, once per worker; each takes the part it uses. */
export interface ApiActivityDeps extends Omit<BuyEvidenceDeps, 'repository'> {
  /** The API client of each environment this worker serves (one key, one environment). */
  clients: Partial<Record<Environment, ApiClient>>;
  catalog: CatalogLookups;
  kindMap: KindMap;
  now: () => number;
  /** Reads the request of the order run an activity works for (the buy's input does not carry it); the validation keeps it. */
  orderRequests: RecentOrderRequests;
  /** Writes the order's journal: the buy writes the batch it is given (its write-ahead record) before it sends. */
  writeJournal: JournalWriter;
  /**
   * Where the buy claims its attempt just before sending (see `claimBuyForSending`), and reads it back when the claim
   * or its intent is refused (see `ranBefore`).
   */
  repository: Pick<
    Repository,
    'claimBuyForSending' | 'getOrder' | 'buyEvidence' | 'listApprovers' | 'recordWorkerQuote' | 'recordRefusedCall'
  >;
}

/** The activities that call the ordering API or read its catalog, one module each. */
export type ApiActivities = Pick<
  OrderActivities,
  'lookUpLocation' | 'lookUpImage' | 'validateOrder' | 'buyOrder' | 'readProduct' | 'checkResolvedProduct'
>;

/** The API client of `environment`; a worker without its key refuses the order for good. */
export function clientFor(clients: ApiActivityDeps['clients'], environment: Environment): ApiClient {
  const client = clients[environment];
  if (!client) {
    throw ApplicationFailure.nonRetryable(
      `this worker has no API key for the ${environment} environment; run a worker configured for ${environment}`,
      'EnvironmentNotConfigured',
    );
  }
  return client;
}
