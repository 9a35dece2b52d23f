import * as localPostgres from '../postgres/index.js';
import { projectPath } from '../../config/project-folder.js';

// The embedded PostgreSQL of a machine of your own (`mve-orders dev`, tests, benches): the workspace package's server,
// with the app's own data folder and database by default. Development tooling: what serve, worker and migrate run
// never imports it (they take DATABASE_URL).

export {
  initialiseEmbeddedPostgres,
  quoteIdentifier,
  ROOT_CLUSTERS_DIR,
  type EmbeddedPostgresServer,
} from '../postgres/index.js';

/** `.data/postgres` under the project root (gitignored), so dev data survives restarts. */
export const DEFAULT_EMBEDDED_DATA_DIR = projectPath('.data/postgres');

/** The package's options, every one optional: the data folder defaults to DEFAULT_EMBEDDED_DATA_DIR, the database to `mve_orders`. */
export type EmbeddedPostgresOptions = Partial<localPostgres.EmbeddedPostgresOptions>;

export function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions = {},
): Promise<localPostgres.EmbeddedPostgresServer> {
  return localPostgres.startEmbeddedPostgres({
    ...options,
    dataDir: options.dataDir ?? DEFAULT_EMBEDDED_DATA_DIR,
    database: options.database ?? 'mve_orders',
  });
}
