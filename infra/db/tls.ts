import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { ConnectionOptions } from 'node:tls';

// TLS to PostgreSQL from the database URL's `sslmode` and `sslrootcert`, meaning what they mean to psql (libpq), so a
// managed PostgreSQL's documented URL works as given. The `postgres` client alone reads neither PGSSLMODE nor
// sslrootcert, checks an IP address against the name `localhost`, and takes any unknown sslmode as verify-full:
// these settings are decided here, once, for every process that connects.

/** What each mode does; `allow` (plain first, then TLS) is not offered by the client, so it is refused. */
const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
type SslMode = (typeof SSL_MODES)[number];

/** libpq's client-certificate and revocation parameters: not supported, and the server would refuse them by name. */
const UNSUPPORTED_PARAMETERS = ['sslcert', 'sslkey', 'sslpassword', 'sslcrl', 'sslcrldir'];

/** What the `postgres` client is given: the URL without the TLS parameters, and its `ssl` option (absent: none). */
export interface DatabaseTls {
  url: string;
  ssl?: false | 'prefer' | 'require' | ConnectionOptions;
}

/**
 * Reads `sslmode` and `sslrootcert` from the URL, else from PGSSLMODE and PGSSLROOTCERT. No sslmode anywhere: no
 * TLS (the client's default). `sslrootcert=system` (or no CA file) trusts Node's CAs; a CA file, only that CA.
 * Errors name the setting and the rule, never the URL (it holds the password).
 */
export function databaseTls(url: string, env: NodeJS.ProcessEnv = process.env): DatabaseTls {
  const [address = '', query = ''] = splitQuery(url);
  const params = new URLSearchParams(query);
  const unsupported = UNSUPPORTED_PARAMETERS.filter((name) => params.has(name));
  if (unsupported.length > 0) {
    throw new Error(
      `DATABASE_URL: ${unsupported.join(', ')} not supported (client certificates and revocation lists are not ` +
        `offered); verify the server with sslmode=verify-full and sslrootcert=<CA file>`,
    );
  }
  const rootCert = setting(params, 'sslrootcert', env.PGSSLROOTCERT);
  const mode = sslMode(setting(params, 'sslmode', env.PGSSLMODE), rootCert);
  const plainUrl = withoutTlsParameters(url, address, params);
  if (mode === undefined) return { url: plainUrl };
  return { url: plainUrl, ssl: sslOption(mode.value, rootCert, hostsOf(address)) };
}

interface Setting {
  value: string;
  /** Where it was read, for errors: `DATABASE_URL sslmode` or `PGSSLMODE`. */
  source: string;
}

function setting(params: URLSearchParams, name: string, fromEnv: string | undefined): Setting | undefined {
  const inUrl = params.get(name);
  if (inUrl !== null) return { value: inUrl, source: `DATABASE_URL ${name}` };
  return fromEnv ? { value: fromEnv, source: `PG${name.toUpperCase()}` } : undefined;
}

function sslMode(mode: Setting | undefined, rootCert: Setting | undefined): { value: SslMode } | undefined {
  if (mode === undefined) return rootCert?.value === 'system' ? { value: 'verify-full' } : undefined;
  if (!(SSL_MODES as readonly string[]).includes(mode.value)) {
    throw new Error(`${mode.source} "${mode.value}" is not one of ${SSL_MODES.join(', ')}`);
  }
  if (rootCert?.value === 'system' && mode.value !== 'verify-full') {
    throw new Error(`${rootCert.source}=system needs sslmode=verify-full (got ${mode.value})`);
  }
  // As libpq: require with a CA file checks the chain, as verify-ca does.
  return { value: mode.value === 'require' && rootCert ? 'verify-ca' : (mode.value as SslMode) };
}

function sslOption(mode: SslMode, rootCert: Setting | undefined, hosts: string[]): DatabaseTls['ssl'] {
  if (mode === 'disable') return false;
  if (mode === 'prefer' || mode === 'require') return mode; // encrypted, the server not verified
  const ca = rootCert && rootCert.value !== 'system' ? { ca: readCa(rootCert) } : {};
  if (mode === 'verify-ca') return { ...ca, rejectUnauthorized: true, checkServerIdentity: () => undefined };
  // verify-full: the client names a host by its DNS name itself, but an address it checks as `localhost`.
  const [host, ...others] = hosts;
  if (others.length > 0 && hosts.some((name) => net.isIP(name) !== 0)) {
    throw new Error('DATABASE_URL with several hosts and sslmode=verify-full: name each host by its DNS name');
  }
  return { ...ca, rejectUnauthorized: true, ...(others.length === 0 && host ? { host } : {}) };
}

function readCa({ value: file, source }: Setting): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${source}: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`${source}: ${file} holds no PEM certificate`);
  return pem;
}

/** The URL as given, or without sslmode and sslrootcert (decided here; the client would send sslrootcert to the server). */
function withoutTlsParameters(url: string, address: string, params: URLSearchParams): string {
  if (!params.has('sslmode') && !params.has('sslrootcert')) return url;
  params.delete('sslmode');
  params.delete('sslrootcert');
  const rest = params.toString();
  return rest === '' ? address : `${address}?${rest}`;
}

function splitQuery(url: string): [string, string] {
  const at = url.indexOf('?');
  return at === -1 ? [url, ''] : [url.slice(0, at), url.slice(at + 1)];
}

/** The URL's hosts as the client reads them (`postgres://user:pass@a:5432,b:5432/db`), without ports or brackets. */
function hostsOf(address: string): string[] {
  const authority = address.slice(address.indexOf('://') + 3).split('/')[0] ?? '';
  const hosts = decodeURIComponent(authority.slice(authority.lastIndexOf('@') + 1));
  return hosts
    .split(',')
    .map((host) => (host.startsWith('[') ? host.slice(1, host.indexOf(']')) : (host.split(':')[0] ?? '')))
    .filter((host) => host !== '');
}
