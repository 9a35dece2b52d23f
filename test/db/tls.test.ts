import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { connectDatabase, openDatabase } from '../../infra/db/index.js';
import {
  initialiseEmbeddedPostgres,
  startEmbeddedPostgres,
  type EmbeddedPostgresServer,
} from '../../tooling/dev/embedded-postgres.js';
import { runCli } from '../helpers/cli.js';

// TLS to PostgreSQL as a managed one is reached: a server whose certificate (for `localhost` only) is signed by a CA
// of our own, reached with the URL's sslmode and sslrootcert, by the code every process connects with and by the
// real commands.

const execFileAsync = promisify(execFile);
const PASSWORD = 'tls-test-secret';

interface Setup {
  dir: string;
  server: EmbeddedPostgresServer;
  ca: string;
  otherCa: string;
}

let setup: Setup | undefined;
const ready = () => {
  if (!setup) throw new Error('the TLS server did not start');
  return setup;
};

const openssl = (...args: string[]) => execFileAsync('openssl', args);

/** A CA, another CA, and a server certificate for `localhost` (no IP address) signed by the first. */
async function makeCertificates(dir: string): Promise<void> {
  const file = (name: string) => path.join(dir, name);
  for (const ca of ['ca', 'other-ca']) {
    await openssl(
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=mve-orders test ${ca}`],
      ...['-keyout', file(`${ca}.key`), '-out', file(`${ca}.pem`)],
    );
  }
  await openssl(
    ...['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost'],
    ...['-keyout', file('server.key'), '-out', file('server.csr')],
  );
  await writeFile(file('server.ext'), 'subjectAltName=DNS:localhost\n');
  await openssl(
    ...['x509', '-req', '-days', '1', '-in', file('server.csr'), '-extfile', file('server.ext')],
    ...['-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('server.pem')],
  );
}

test.before(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mve-db-tls-'));
  await chmod(dir, 0o755); // the account PostgreSQL runs as (postgres, under root) reads the certificate here
  await makeCertificates(dir);
  const dataDir = path.join(dir, 'data');
  await initialiseEmbeddedPostgres(dataDir, { password: PASSWORD, ephemeral: true });
  // PostgreSQL takes a key only its own account can read: the data folder's owner.
  const owner = await stat(dataDir);
  const key = path.join(dir, 'server.key');
  await chown(key, owner.uid, owner.gid);
  await chmod(key, 0o600);
  const server = await startEmbeddedPostgres({
    dataDir,
    password: PASSWORD,
    ephemeral: true,
    database: 'orders',
    settings: { ssl: 'on', ssl_cert_file: path.join(dir, 'server.pem'), ssl_key_file: key },
  });
  setup = { dir, server, ca: path.join(dir, 'ca.pem'), otherCa: path.join(dir, 'other-ca.pem') };
  // The product's own role and database, as a managed PostgreSQL is set up for it: no superuser.
  const admin = connectDatabase(server.adminUrl, { maxConnections: 1 });
  await admin.unsafe(`CREATE ROLE orders_owner LOGIN PASSWORD '${PASSWORD}'`);
  await admin.unsafe('CREATE DATABASE orders_app OWNER orders_owner');
  await admin.end();
});

test.after.always(async () => {
  await setup?.server.stop();
  if (setup) await rm(setup.dir, { recursive: true, force: true });
});

/** The server's URL through `host`, with `query` (sslmode, sslrootcert) appended. */
const urlVia = (host: string, query = '', login = 'postgres', database = 'orders') =>
  `postgres://${login}:${PASSWORD}@${host}:${ready().server.port}/${database}${query ? `?${query}` : ''}`;

/** Whether the session the URL opens is encrypted, as the server sees it. */
async function sessionIsEncrypted(url: string): Promise<boolean> {
  const sql = connectDatabase(url, { maxConnections: 1 });
  try {
    const [row] = await sql<Array<{ ssl: boolean }>>`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`;
    return row.ssl;
  } finally {
    await sql.end();
  }
}

/** The error a serve, worker or migrate start meets on the URL (openDatabase is their first step). */
async function refusal(url: string): Promise<string> {
  const error = await openDatabase(url, { maxConnections: 1 }).then(
    async (sql) => {
      await sql.end();
      return undefined;
    },
    (caught: unknown) => caught as Error,
  );
  if (!error) throw new Error('the connection was not refused');
  return error.message;
}

test('verify-full with the CA that signed the server: connected, and the session is encrypted', async (t) => {
  t.true(await sessionIsEncrypted(urlVia('localhost', `sslmode=verify-full&sslrootcert=${ready().ca}`)));
  // A provider's bundle holds several CAs (its old and new during its own rotation): any of them will do.
  const bundle = path.join(ready().dir, 'bundle.pem');
  await writeFile(bundle, (await readFile(ready().otherCa, 'utf8')) + (await readFile(ready().ca, 'utf8')));
  t.true(await sessionIsEncrypted(urlVia('localhost', `sslmode=verify-full&sslrootcert=${bundle}`)));
});

test('verify-full with another CA is refused, saying the CA did not sign it, without the password', async (t) => {
  const message = await refusal(urlVia('localhost', `sslmode=verify-full&sslrootcert=${ready().otherCa}`));
  t.regex(message, /cannot reach PostgreSQL at .*: .*not signed by the CA of sslrootcert/);
  t.false(message.includes(PASSWORD));
});

test('verify-full to a host the certificate does not name is refused; verify-ca checks the CA only', async (t) => {
  const message = await refusal(urlVia('127.0.0.1', `sslmode=verify-full&sslrootcert=${ready().ca}`));
  t.regex(message, /IP: 127\.0\.0\.1 is not in the cert's list.*does not name this host/);
  t.true(await sessionIsEncrypted(urlVia('127.0.0.1', `sslmode=verify-ca&sslrootcert=${ready().ca}`)));
  t.regex(await refusal(urlVia('127.0.0.1', `sslmode=verify-ca&sslrootcert=${ready().otherCa}`)), /not signed/);
});

test('require encrypts without verifying; with a CA file it checks the CA (as psql); no sslmode: plaintext', async (t) => {
  t.true(await sessionIsEncrypted(urlVia('127.0.0.1', 'sslmode=require')));
  t.regex(await refusal(urlVia('127.0.0.1', `sslmode=require&sslrootcert=${ready().otherCa}`)), /not signed/);
  t.false(await sessionIsEncrypted(urlVia('127.0.0.1')));
  t.false(await sessionIsEncrypted(urlVia('127.0.0.1', 'sslmode=disable')));
});

test('an unknown sslmode, an unreadable CA file, a client certificate: refused, naming the setting and the rule', (t) => {
  t.throws(() => connectDatabase(urlVia('localhost', 'sslmode=verify-everything')), {
    message: 'DATABASE_URL sslmode "verify-everything" is not one of disable, prefer, require, verify-ca, verify-full',
  });
  t.throws(() => connectDatabase(urlVia('localhost', 'sslmode=verify-full&sslrootcert=/nonexistent/ca.pem')), {
    message: 'DATABASE_URL sslrootcert: cannot read /nonexistent/ca.pem (ENOENT)',
  });
  t.throws(() => connectDatabase(urlVia('localhost', 'sslmode=verify-full&sslcert=client.pem')), {
    message: /^DATABASE_URL: sslcert not supported/,
  });
  t.throws(() => connectDatabase(urlVia('localhost', 'sslmode=require&sslrootcert=system')), {
    message: 'DATABASE_URL sslrootcert=system needs sslmode=verify-full (got require)',
  });
  // The client would check each address against the name `localhost`: several hosts must be named.
  t.throws(() => connectDatabase(`postgres://u:p@10.0.0.1:5432,10.0.0.2:5432/orders?sslmode=verify-full`), {
    message: 'DATABASE_URL with several hosts and sslmode=verify-full: name each host by its DNS name',
  });
});

test("migrate (as its database's owner, no superuser), serve and worker connect through it; PGSSLMODE too", async (t) => {
  const plainUrl = urlVia('localhost', '', 'orders_owner', 'orders_app');
  const withCa = (ca: string) => ({ DATABASE_URL: plainUrl, PGSSLMODE: 'verify-full', PGSSLROOTCERT: ca });
  const migrated = await runCli(['migrate'], { env: withCa(ready().ca) });
  t.is(migrated.code, 0, migrated.stderr);
  t.regex(migrated.stdout, /migration\(s\) applied/);
  const noCodecKeys = { ...withCa(ready().ca), MVE_CODEC_KEYS: '' };
  const [served, worked, ...refused] = await Promise.all([
    ...['serve', 'worker'].map((command) => runCli([command], { env: noCodecKeys })),
    ...['migrate', 'serve', 'worker'].map((command) => runCli([command], { env: withCa(ready().otherCa) })),
  ]);
  // Past the database, serve and worker stop at the next thing they need (no codec keys here).
  for (const run of [served, worked]) t.regex(run?.stderr ?? '', /MVE_CODEC_KEYS is not set/);
  for (const run of refused) {
    t.not(run.code, 0);
    t.regex(run.stderr, /cannot reach PostgreSQL at postgres:\/\/orders_owner:\*\*\*@localhost:.*not signed by the CA/);
    t.false(run.stderr.includes(PASSWORD));
  }
  const badMode = await runCli(['migrate'], { env: { DATABASE_URL: urlVia('localhost', 'sslmode=on') } });
  t.regex(badMode.stderr, /DATABASE_URL sslmode "on" is not one of disable, prefer, require, verify-ca, verify-full/);
  t.false(badMode.stderr.includes(PASSWORD));
});
