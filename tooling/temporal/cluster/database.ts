import type { ClusterDatabase } from './config.js';

/**
 * The cluster's databases on the PostgreSQL server of `url` (a role that may create databases), named
 * `<prefix>` and `<prefix>_visibility`: `temporal` and `temporal_visibility` by default, as Temporal's own docs name them.
 */
export function databaseOf(url: string, prefix = 'temporal'): ClusterDatabase {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: prefix,
    visibilityDatabase: `${prefix}_visibility`,
  };
}
