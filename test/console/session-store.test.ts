/**
 * The console's sessions in PostgreSQL, as two servers see them (two stores on one database): how long a session
 * lives (8 h idle, 12 h in all, no longer than its credential), how rarely a use is written, that what one request
 * changes is stored without undoing another's, that ended and surplus anonymous sessions are deleted, and that the
 * sealed credential survives a key rotation but not a move to another row or the loss of its key.
 */
import { createHash } from 'node:crypto';
import test from 'ava';
import { SessionStore, type ConsoleUser } from '../../client/console/index.js';
import { createRepository, type Sql } from '../../infra/db/index.js';
import { keyringOf } from '../codec/keys.js';
import { Keyring } from '../../codec/index.js';
import { usePostgres } from '../helpers/postgres.js';

const pg = usePostgres(test);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.parse('2030-01-01T08:00:00Z');
const USER: ConsoleUser = {
  id: 'fiona',
  qualifiedId: 'token:fiona',
  roles: ['finance-approver'],
  via: 'token',
  can: { submit: false, approve: true, seeAllOrders: false, resolveBuys: false, readHistoryPayloads: false },
};

/** Two servers' stores on one fresh database, on a clock the test moves. */
async function servers(options: { keys?: Keyring; keepAnonymous?: number; absoluteMs?: number } = {}) {
  const { sql } = await pg.database();
  const clock = { now: T0 };
  const keys = options.keys ?? keyringOf('k1').keyring;
  const store = (keyring = keys) =>
    new SessionStore({
      rows: createRepository(sql),
      keys: keyring,
      now: () => clock.now,
      ...(options.keepAnonymous !== undefined ? { keepAnonymous: options.keepAnonymous } : {}),
      ...(options.absoluteMs !== undefined ? { absoluteMs: options.absoluteMs } : {}),
    });
  return { sql, clock, a: store(), b: store(), store };
}

const hashOf = (id: string) => createHash('sha256').update(id).digest();

async function lastSeen(sql: Sql, id: string): Promise<number | undefined> {
  const [row] = await sql`SELECT last_seen_at FROM console_sessions WHERE id_hash = ${hashOf(id)}`;
  return row ? (row.last_seen_at as Date).getTime() : undefined;
}

test('a session made on one server is the same on another: user, credential, CSRF token', async (t) => {
  const { a, b } = await servers();
  const made = await a.create({ user: USER, credential: 'mvo_abc_secret' });
  const seen = await b.get(made.id);
  t.like(seen, { id: made.id, csrf: made.csrf, user: USER, credential: 'mvo_abc_secret', createdAt: T0 });
  t.is(await b.get(made.id.slice(0, -1) + (made.id.endsWith('A') ? 'B' : 'A')), undefined, 'a guessed id is nobody');
  t.is(await b.get(undefined), undefined);
  await b.destroy(made.id);
  t.is(await a.get(made.id), undefined, 'ended on one server, ended on all');
});

test('idle for 8 hours ends a session; each use pushes that back', async (t) => {
  // No absolute end within two days: what ends these sessions is being unused.
  const { sql, clock, a, b } = await servers({ absoluteMs: 48 * HOUR });
  const unused = await a.create({ user: USER, credential: 'c' });
  const used = await a.create({ user: USER, credential: 'c' });
  clock.now = T0 + 2 * HOUR;
  t.truthy(await b.get(used.id));
  clock.now = T0 + 8 * HOUR + 1;
  t.is(await b.get(unused.id), undefined, 'unused for 8 h');
  t.is(await lastSeen(sql, unused.id), undefined, 'and its row deleted');
  t.truthy(await a.get(used.id), 'used 6 h ago: still on');
  clock.now = T0 + 16 * HOUR;
  t.truthy(await b.get(used.id), 'used 8 h ago less a moment');
  clock.now += 8 * HOUR + 1;
  t.is(await a.get(used.id), undefined, 'unused since, for 8 h');
});

test('no session outlives 12 hours, however busy', async (t) => {
  const { clock, a, b } = await servers();
  const { id } = await a.create({ user: USER, credential: 'c' });
  for (let hour = 1; hour < 12; hour++) {
    clock.now = T0 + hour * HOUR;
    t.truthy(await (hour % 2 ? a : b).get(id), `hour ${hour}`);
  }
  clock.now = T0 + 12 * HOUR;
  t.is(await a.get(id), undefined);
});

test('a session ends when its credential expires', async (t) => {
  const { clock, a, b } = await servers();
  const { id } = await a.create({ user: USER, credential: 'oidc-access-token', credentialExpiresAt: T0 + HOUR });
  clock.now = T0 + HOUR - 1;
  t.is((await b.get(id))?.credentialExpiresAt, T0 + HOUR);
  clock.now = T0 + HOUR;
  t.is(await b.get(id), undefined);
});

test('a use is written at most once a minute', async (t) => {
  const { sql, clock, a, b } = await servers();
  const { id } = await a.create();
  clock.now = T0 + 30_000;
  await b.get(id);
  t.is(await lastSeen(sql, id), T0, 'half a minute later: not written');
  clock.now = T0 + MINUTE + 1;
  t.is((await a.get(id))?.lastSeenAt, T0 + MINUTE + 1);
  t.is(await lastSeen(sql, id), T0 + MINUTE + 1, 'over a minute later: written');
  clock.now += 1000;
  await b.get(id);
  t.is(await lastSeen(sql, id), T0 + MINUTE + 1);
});

test("a request stores only what it changed: a flash set on one server is not undone by another's request", async (t) => {
  const { a, b } = await servers();
  const { id } = await a.create({ user: USER, credential: 'c' });
  const polling = await b.get(id);
  const acting = await a.get(id);
  acting!.flash = { kind: 'ok', text: 'You approved it.' };
  await a.save(acting!);
  await b.save(polling!); // loaded before the flash was set, changed nothing
  const next = await b.get(id);
  t.deepEqual(next?.flash, { kind: 'ok', text: 'You approved it.' });
  delete next!.flash;
  await b.save(next!);
  t.is((await a.get(id))?.flash, undefined, 'shown once');

  const signingIn = await a.create();
  signingIn.pendingOidc = { state: 's', nonce: 'n', codeVerifier: 'v', next: '/', startedAt: T0 };
  await a.save(signingIn);
  t.deepEqual((await b.get(signingIn.id))?.pendingOidc, signingIn.pendingOidc, 'a sign-in under way, on any server');
});

test('ended sessions, and anonymous ones beyond the newest few, are deleted by the next server to make a session', async (t) => {
  const { sql, clock, a, b } = await servers({ keepAnonymous: 2 });
  const signedIn = await a.create({ user: USER, credential: 'c' });
  const anonymous = [];
  for (let i = 0; i < 4; i++) {
    clock.now += 1000;
    anonymous.push(await a.create());
  }
  const ended = await a.create({ user: USER, credential: 'c', credentialExpiresAt: clock.now + MINUTE });
  const count = async () => Number((await sql`SELECT count(*) AS n FROM console_sessions`)[0].n);
  t.is(await count(), 6, 'not before the clean-up interval');
  clock.now += 5 * MINUTE;
  await b.create({ user: USER, credential: 'c' });
  t.is(await count(), 4);
  t.truthy(await a.get(signedIn.id), 'a signed-in session stays');
  t.is(await a.get(ended.id), undefined);
  t.is(await a.get(anonymous[0].id), undefined, 'the oldest anonymous session went');
  t.is(await a.get(anonymous[1].id), undefined);
  t.truthy(await a.get(anonymous[3].id), 'the newest stays');
});

test('the credential is sealed with the current codec key, opens after a rotation, and ends with its key', async (t) => {
  const first = keyringOf('k1');
  const { sql, store } = await servers({ keys: first.keyring });
  const { id } = await store().create({ user: USER, credential: 'mvo_abc_secret' });
  const [row] = await sql`SELECT secrets_key_id, secrets, row_to_json(s)::text AS everything
                          FROM console_sessions s WHERE id_hash = ${hashOf(id)}`;
  t.is(row.secrets_key_id, 'k1');
  t.false((row.everything as string).includes('mvo_abc_secret'), 'no plaintext credential in the row');
  t.false(Buffer.from(row.secrets as Uint8Array).includes('mvo_abc_secret'));

  const withNewKeyFirst = store(Keyring.fromText(`${keyringOf('k2').text},${first.text}`));
  const withoutOldKey = store(keyringOf('k2').keyring);
  t.is((await withNewKeyFirst.get(id))?.credential, 'mvo_abc_secret', 'the old key, still in the ring, opens it');
  t.is(await withoutOldKey.get(id), undefined, 'without its key the session cannot be used: sign in again');
  t.is((await sql`SELECT 1 FROM console_sessions WHERE id_hash = ${hashOf(id)}`).length, 0);
});

test("sealed secrets moved to another session's row do not open there", async (t) => {
  const { sql, a } = await servers();
  const admin = await a.create({ user: { ...USER, roles: ['admin'] }, credential: 'admins-token' });
  const mallory = await a.create({ user: USER, credential: 'mallorys-token' });
  await sql`UPDATE console_sessions SET secrets = (SELECT secrets FROM console_sessions WHERE id_hash = ${hashOf(admin.id)})
            WHERE id_hash = ${hashOf(mallory.id)}`;
  t.is(await a.get(mallory.id), undefined);
  t.is((await a.get(admin.id))?.credential, 'admins-token');
});
