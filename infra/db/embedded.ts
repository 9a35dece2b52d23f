import { fileURLToPath } from 'node:url';
import {
  startEmbeddedPostgres as startLocalPostgres,
  type EmbeddedPostgresOptions,
  type EmbeddedPostgresServer,
} from '@mve-orders/local-postgres';

// The app's embedded PostgreSQL (`mve-orders dev`, tests, benches): the workspace package's server, with the app's
// own data folder and database by default.

export {
  initialiseEmbeddedPostgres,
  quoteIdentifier,
  ROOT_CLUSTERS_DIR,
  type EmbeddedPostgresServer,
} from '@mve-orders/local-postgres';

/** `.data/postgres` under the project root (gitignored), so dev data survives restarts. */
export const DEFAULT_EMBEDDED_DATA_DIR = fileURLToPath(new URL('../../.data/postgres', import.meta.url));

/** Where the app's cluster lives (default DEFAULT_EMBEDDED_DATA_DIR) and the database to create in it (default `mve_orders`). */
export type AppPostgresOptions = Partial<EmbeddedPostgresOptions>;
export type { AppPostgresOptions as EmbeddedPostgresOptions };

export function startEmbeddedPostgres(options: AppPostgresOptions = {}): Promise<EmbeddedPostgresServer> {
  return startLocalPostgres({
    ...options,
    dataDir: options.dataDir ?? DEFAULT_EMBEDDED_DATA_DIR,
    database: options.database ?? 'mve_orders',
  });
}
