import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createRepository, RepositoryError, type Repository, type Sql } from '../../infra/db/index.js';
import { authenticateApiToken, issueApiToken, looksLikeApiToken } from '../../client/http/auth/api-tokens.js';
import { AuthenticationError } from '../../client/http/index.js';
import { usePostgres } from '../helpers/postgres.js';

const postgres = usePostgres(test);

/** Each test gets its own database: token lists are global. */
async function fresh(): Promise<{ repo: Repository; sql: Sql }> {
  const { sql } = await postgres.database();
  return { repo: createRepository(sql), sql };
}

const parts = (token: string) => {
  const match = /^mvo_([a-z0-9]+)_(.+)$/.exec(token);
  if (!match) throw new Error('not a token');
  return { id: match[1], secret: match[2] };
};

const DAY = 86_400_000;

test('an issued token authenticates as its owner with its roles, and its use is recorded', async (t) => {
  const { repo } = await fresh();
  const issued = await issueApiToken(repo, {
    owner: 'servicedesk',
    roles: ['ticket-system', 'requester'],
    description: 'ServiceDesk',
  });
  t.regex(issued.token, /^mvo_[a-z2-7]{12}_[A-Za-z0-9_-]{43}$/);
  t.true(looksLikeApiToken(issued.token));
  t.true(looksLikeApiToken('mvo_truncated'), 'a damaged token is still meant as one (and refused as malformed)');
  t.false(looksLikeApiToken('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJmIn0.c2ln'), 'a JWT is not');
  t.is(parts(issued.token).id, issued.record.id);
  t.like(issued.record, {
    owner: 'servicedesk',
    roles: ['requester', 'ticket-system'],
    description: 'ServiceDesk',
    expiresAt: null,
    lastUsedAt: null,
    revokedAt: null,
    revokedBy: null,
  });

  const at = new Date();
  const principal = await authenticateApiToken(repo, issued.token, at);
  t.deepEqual(principal, {
    id: 'servicedesk',
    qualifiedId: 'servicedesk',
    roles: ['requester', 'ticket-system'],
    via: { kind: 'token', tokenId: issued.record.id },
  });
  const [listed] = await repo.listTokens();
  t.is(listed.lastUsedAt, at.toISOString(), 'the use is recorded');
});

test('last use is written at most once a minute', async (t) => {
  const { repo } = await fresh();
  const { record } = await issueApiToken(repo, { owner: 'bot', roles: ['ops'] });
  const start = new Date('2030-01-01T00:00:00Z');
  t.true(await repo.touchToken(record.id, start), 'the first use writes');
  t.false(await repo.touchToken(record.id, new Date(start.getTime() + 30_000)), 'a use 30 s later does not');
  t.false(await repo.touchToken(record.id, new Date(start.getTime() + 60_000)), 'nor one exactly a minute later');
  t.true(await repo.touchToken(record.id, new Date(start.getTime() + 61_000)), 'a use over a minute later does');
  t.is((await repo.listTokens())[0].lastUsedAt, '2030-01-01T00:01:01.000Z');
  t.false(await repo.touchToken('nosuchtoken1', start), 'an unknown id writes nothing');
});

test('a token used again within the minute is let in without a write; a use after it is recorded', async (t) => {
  const { repo } = await fresh();
  const issued = await issueApiToken(repo, { owner: 'bot', roles: ['ops'] });
  const writes: Date[] = [];
  const counting = {
    ...repo,
    touchToken: async (id: string, at: Date | string) => {
      writes.push(new Date(at));
      return repo.touchToken(id, at);
    },
  };
  const start = new Date('2030-01-01T00:00:00Z');
  const later = (seconds: number) => new Date(start.getTime() + seconds * 1000);
  for (const seconds of [0, 1, 30, 60, 61, 62])
    t.is((await authenticateApiToken(counting, issued.token, later(seconds))).id, 'bot');
  t.deepEqual(writes, [start, later(61)], 'the first use and the first over a minute after it, no statement between');
  t.is((await repo.listTokens())[0].lastUsedAt, later(61).toISOString());
});

test('wrong secrets, unknown ids, malformed strings, revoked and expired tokens are each refused, saying which', async (t) => {
  const { repo } = await fresh();
  const expiresAt = new Date(Date.now() + DAY);
  const issued = await issueApiToken(repo, { owner: 'bot', roles: ['ops'], expiresAt });
  const { id, secret } = parts(issued.token);

  const refused = async (token: string, message: RegExp, now?: Date) => {
    const error = await t.throwsAsync(authenticateApiToken(repo, token, now), {
      instanceOf: AuthenticationError,
      message,
    });
    if (token !== '') t.false(error.message.includes(token), 'the message never echoes the token');
    t.false(error.message.includes(secret), 'nor its secret');
  };

  const otherSecret = randomBytes(32).toString('base64url');
  await refused(`mvo_${id}_${otherSecret}`, new RegExp(`^API token ${id}: wrong secret$`));
  await refused(`mvo_${'q'.repeat(12)}_${secret}`, /^unknown API token qqqqqqqqqqqq$/);
  for (const malformed of [
    '',
    'Bearer x',
    `mvo_${id}`,
    `${issued.token}x`,
    `mvx_${id}_${secret}`,
    issued.token.toUpperCase(),
    'eyJhbGciOi.eyJzdWIi.c2ln',
  ]) {
    await refused(malformed, /^malformed API token: expected mvo_<id>_<secret>/);
  }
  await refused(
    issued.token,
    new RegExp(`^API token ${id} expired at ${expiresAt.toISOString()}$`),
    new Date(expiresAt.getTime() + 1),
  );
  await refused(issued.token, /expired/, expiresAt);
  t.is(
    (await authenticateApiToken(repo, issued.token, new Date(expiresAt.getTime() - 1))).id,
    'bot',
    'valid until then',
  );

  await repo.revokeToken({ id, by: 'alice' });
  await refused(issued.token, new RegExp(`^API token ${id} was revoked at \\S+Z$`));
  // A revoked token's holder learns it was revoked; someone guessing secrets learns nothing more.
  await refused(`mvo_${id}_${otherSecret}`, /wrong secret/);
});

test('the database holds no plaintext token: only a 32-byte hash of the secret', async (t) => {
  const { repo, sql } = await fresh();
  const issued = await issueApiToken(repo, { owner: 'bot', roles: ['ops'], description: 'for the test' });
  await authenticateApiToken(repo, issued.token);
  const { secret } = parts(issued.token);

  const columns = await sql<{ column_name: string }[]>`
    SELECT column_name FROM information_schema.columns WHERE table_name = 'api_tokens' ORDER BY ordinal_position`;
  t.true(columns.length >= 10);
  const forms = [
    issued.token,
    secret,
    Buffer.from(secret, 'utf8').toString('hex'),
    Buffer.from(secret, 'base64url').toString('hex'),
    Buffer.from(secret, 'base64url').toString('base64'),
  ];
  for (const { column_name } of columns) {
    const values = await sql<{ value: string | null }[]>`SELECT ${sql(column_name)}::text AS value FROM api_tokens`;
    for (const { value } of values) {
      for (const form of forms)
        t.false((value ?? '').includes(form), `column ${column_name} holds no form of the secret`);
    }
  }
  const [row] = await sql<{ length: number }[]>`SELECT octet_length(secret_hash) AS length FROM api_tokens`;
  t.is(row.length, 32);
});

test('lists never return hashes; they filter by owner (any case) and hide revoked tokens unless asked', async (t) => {
  const { repo, sql } = await fresh();
  const a = await issueApiToken(repo, { owner: 'Fiona', roles: ['finance-approver'] });
  const b = await issueApiToken(repo, {
    owner: 'bot',
    roles: ['ops', 'admin'],
    expiresAt: new Date(Date.now() + 90 * DAY),
  });
  await repo.revokeToken({ id: b.record.id, by: 'alice' });

  const all = await repo.listTokens({ includeRevoked: true });
  t.deepEqual(
    all.map((token) => token.id),
    [a.record.id, b.record.id],
  );
  const [stored] = await sql<{ hash: Buffer }[]>`SELECT secret_hash AS hash FROM api_tokens WHERE id = ${a.record.id}`;
  const hash = stored.hash;
  for (const token of all) {
    t.deepEqual(Object.keys(token).sort(), [
      'createdAt',
      'description',
      'expiresAt',
      'id',
      'lastUsedAt',
      'owner',
      'revokedAt',
      'revokedBy',
      'roles',
    ]);
    const text = JSON.stringify(token);
    t.false(text.includes(hash.toString('hex')) || text.includes(hash.toString('base64')), 'no hash in any form');
  }
  t.deepEqual(
    (await repo.listTokens()).map((token) => token.id),
    [a.record.id],
    'revoked tokens are hidden by default',
  );
  t.deepEqual(
    (await repo.listTokens({ owner: 'fiona' })).map((token) => token.owner),
    ['Fiona'],
  );
  t.deepEqual(await repo.listTokens({ owner: 'nobody' }), []);

  const found = await repo.findTokenForAuthentication(a.record.id);
  t.true(found!.secretHash.equals(hash), 'only the authentication lookup returns the hash');
  t.is(await repo.findTokenForAuthentication('nosuchtoken1'), null);
});

test('revoking is idempotent: the first revocation stays; an unknown id is not found', async (t) => {
  const { repo } = await fresh();
  const { record } = await issueApiToken(repo, { owner: 'bot', roles: ['ops'] });
  const first = await repo.revokeToken({ id: record.id, by: 'alice' });
  t.true(first.revoked);
  t.is(first.token.revokedBy, 'alice');
  t.truthy(first.token.revokedAt);
  const second = await repo.revokeToken({ id: record.id, by: 'bob' });
  t.false(second.revoked);
  t.deepEqual(second.token, first.token, 'the first revocation (time and author) is kept');

  const error = await t.throwsAsync(repo.revokeToken({ id: 'nosuchtoken1', by: 'alice' }), {
    instanceOf: RepositoryError,
  });
  t.is(error.kind, 'not-found');
  t.regex(error.message, /revokeToken: no API token with id nosuchtoken1/);
});

test('bad owners, roles and expiries are refused naming the field and the rule, storing nothing', async (t) => {
  const { repo, sql } = await fresh();
  const error = await t.throwsAsync(
    issueApiToken(repo, { owner: 'bad owner!', roles: ['Finance Team'], expiresAt: new Date(Date.now() - DAY) }),
    { instanceOf: RepositoryError },
  );
  t.is(error.kind, 'invalid-input');
  t.regex(error.message, /owner: must be letters, digits and \. _ @ -/);
  t.regex(error.message, /roles\.0: must be a lowercase word/);
  t.regex(error.message, /expiresAt: must be in the future/);
  await t.throwsAsync(issueApiToken(repo, { owner: 'bot', roles: [] }), { message: /roles: name at least one role/ });

  // The database checks the same rules, for writers other than this repository.
  const hash = randomBytes(32);
  await t.throwsAsync(
    sql`INSERT INTO api_tokens (id, secret_hash, owner, roles) VALUES ('abcdefgh2345', ${hash}, 'bot', '{}')`,
    {
      message: /api_tokens_roles_format/,
    },
  );
  await t.throwsAsync(
    sql`INSERT INTO api_tokens (id, secret_hash, owner, roles) VALUES ('abcdefgh2345', ${hash}, 'bot', '{"ops,admin"}')`,
    {
      message: /api_tokens_roles_format/,
    },
  );
  await t.throwsAsync(
    sql`INSERT INTO api_tokens (id, secret_hash, owner, roles) VALUES ('abcdefgh2345', ${randomBytes(16)}, 'bot', '{ops}')`,
    {
      message: /api_tokens_secret_hash_sha256/,
    },
  );
  await t.throwsAsync(
    sql`INSERT INTO api_tokens (id, secret_hash, owner, roles) VALUES ('Bad_Id', ${hash}, 'bot', '{ops}')`,
    {
      message: /api_tokens_id_format/,
    },
  );
  t.deepEqual(await repo.listTokens({ includeRevoked: true }), []);
});
