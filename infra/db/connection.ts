import postgres from 'postgres';
import { databaseTls } from './tls.js';

export type Sql = postgres.Sql;
/** Where a statement runs: the pool (or a connection reserved from it) or an open transaction. */
export type Queryable = Sql | postgres.TransactionSql;

/** What a user sees when no database was named anywhere. */
export const NO_DATABASE_URL_MESSAGE =
  'no database given: set DATABASE_URL or pass --database-url ' +
  '(for local development, `mve-orders dev` starts an embedded PostgreSQL and prints its URL)';

/** The database URL from an explicit option, else DATABASE_URL; a clear error when neither is set. */
export function resolveDatabaseUrl(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const url = explicit?.trim() || env.DATABASE_URL?.trim();
  if (!url) throw new Error(NO_DATABASE_URL_MESSAGE);
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new Error(`database URL must start with postgres:// or postgresql:// (got ${redactDatabaseUrl(url)})`);
  }
  return url;
}

/** The URL with its password replaced, safe to print or log. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable database URL>';
  }
}

export interface ConnectOptions {
  /** Pool size; the worker's activities share one pool. */
  maxConnections?: number;
}

/**
 * Opens a connection pool (connections are made lazily, on the first query). TLS follows the URL's `sslmode` and
 * `sslrootcert` (./tls.ts); a bad one throws here. Server notices ("relation already exists, skipping") are dropped:
 * they are not for users. Close with `sql.end()`.
 */
export function connectDatabase(url: string, options: ConnectOptions = {}): Sql {
  const tls = databaseTls(url);
  return postgres(tls.url, {
    ...(tls.ssl === undefined ? {} : { ssl: tls.ssl }),
    max: options.maxConnections ?? 10,
    connect_timeout: 10,
    idle_timeout: 60,
    onnotice: () => {},
  });
}

/**
 * Connects and proves the server answers, so a wrong URL fails now, in one clear sentence (password
 * hidden), rather than at the first query deep inside something else.
 */
export async function openDatabase(url: string, options: ConnectOptions = {}): Promise<Sql> {
  const sql = connectDatabase(url, options);
  try {
    await sql`SELECT 1`;
    return sql;
  } catch (error) {
    await sql.end({ timeout: 1 }).catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    const hint = certificateHint((error as NodeJS.ErrnoException).code);
    throw new Error(`cannot reach PostgreSQL at ${redactDatabaseUrl(url)}: ${reason}${hint ? ` (${hint})` : ''}`);
  }
}

/** Node's words for a refused certificate, said in terms of the URL's settings. */
function certificateHint(code: string | undefined): string | undefined {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return "the server's certificate does not name this host: sslmode=verify-full checks it";
  }
  const untrusted = [
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'CERT_UNTRUSTED',
  ];
  if (code && untrusted.includes(code)) {
    return "the server's certificate is not signed by the CA of sslrootcert, or by one Node trusts when there is none";
  }
  return undefined;
}
