import test from 'ava';
import { createRepository, type Repository, type RepositoryError } from '../../infra/db/index.js';
import { usePostgres } from '../helpers/postgres.js';

const postgres = usePostgres(test);

/** Each test gets its own database: approver lists are global. */
async function freshRepository(): Promise<Repository> {
  return createRepository((await postgres.database()).sql);
}

test('adding the same approver twice is one approver; roles are kept sorted and unique', async (t) => {
  const repo = await freshRepository();
  const first = await repo.addApprover({
    id: 'fiona@example.com',
    displayName: 'Fiona',
    roles: ['finance', 'cfo', 'finance'],
  });
  t.true(first.created);
  t.deepEqual(first.approver.roles, ['cfo', 'finance']);
  const again = await repo.addApprover({ id: 'fiona@example.com', displayName: 'Fiona', roles: ['cfo', 'finance'] });
  t.false(again.created);
  t.deepEqual(again.approver, first.approver);
  t.is((await repo.listApprovers()).length, 1);
});

test('adding a different approver under a taken id is refused', async (t) => {
  const repo = await freshRepository();
  await repo.addApprover({ id: 'fiona', displayName: 'Fiona', roles: ['finance'] });
  const error = await t.throwsAsync(repo.addApprover({ id: 'fiona', displayName: 'Fiona F.', roles: ['finance'] }));
  t.is((error as RepositoryError).kind, 'conflict');
  t.regex(error.message, /approver fiona already exists with other details; change it with update instead/);
});

test('update changes only the named fields; deactivate keeps the approver, inactive', async (t) => {
  const repo = await freshRepository();
  await repo.addApprover({ id: 'carl', displayName: 'Carl', roles: ['finance'] });
  const updated = await repo.updateApprover({ id: 'carl', roles: ['cfo', 'finance'] });
  t.like(updated, { displayName: 'Carl', roles: ['cfo', 'finance'], active: true });

  const deactivated = await repo.deactivateApprover('carl');
  t.false(deactivated.active);
  t.false((await repo.deactivateApprover('carl')).active, 'deactivating twice is fine');
  t.like(await repo.getApprover('carl'), { id: 'carl', active: false, roles: ['cfo', 'finance'] });

  await t.throwsAsync(repo.deactivateApprover('nobody'), { message: /deactivateApprover: no approver with id nobody/ });
  await t.throwsAsync(repo.updateApprover({ id: 'carl' }), {
    message: /updateApprover: invalid input: .*name at least one of displayName, roles, team, active/,
  });
});

test('approvers are listed by id, optionally only the active ones or those with a role', async (t) => {
  const repo = await freshRepository();
  await repo.addApprover({ id: 'zoe', displayName: 'Zoe', roles: ['cfo'] });
  await repo.addApprover({ id: 'adam', displayName: 'Adam', roles: ['finance'] });
  await repo.addApprover({ id: 'mia', displayName: 'Mia', roles: ['finance', 'cfo'] });
  await repo.deactivateApprover('mia');

  t.deepEqual(
    (await repo.listApprovers()).map((a) => a.id),
    ['adam', 'mia', 'zoe'],
  );
  t.deepEqual(
    (await repo.listApprovers({ activeOnly: true })).map((a) => a.id),
    ['adam', 'zoe'],
  );
  t.deepEqual(
    (await repo.listApprovers({ role: 'cfo' })).map((a) => a.id),
    ['mia', 'zoe'],
  );
  t.is(await repo.getApprover('nobody'), null);
});

test('bad approver ids and roles are refused naming the field and the rule', async (t) => {
  const repo = await freshRepository();
  const error = await t.throwsAsync(repo.addApprover({ id: 'bad id!', displayName: '', roles: ['Finance Team'] }));
  t.is((error as RepositoryError).kind, 'invalid-input');
  t.regex(error.message, /id: must be letters, digits and \. _ @ -/);
  t.regex(error.message, /displayName: must not be empty/);
  t.regex(error.message, /roles\.0: must be a lowercase word/);
  t.deepEqual(await repo.listApprovers(), []);
});

test("a person's team is kept, compared when added again, changed or cleared by update, and checked", async (t) => {
  const repo = await freshRepository();
  const added = await repo.addApprover({ id: 'alice', displayName: 'Alice', roles: [], team: 'network' });
  t.is(added.approver.team, 'network');
  t.false((await repo.addApprover({ id: 'alice', displayName: 'Alice', roles: [], team: 'network' })).created);
  await t.throwsAsync(repo.addApprover({ id: 'alice', displayName: 'Alice', roles: [] }), {
    message: /approver alice already exists with other details/,
  });
  t.is((await repo.addApprover({ id: 'bob', displayName: 'Bob', roles: ['finance'] })).approver.team, null);

  t.like(await repo.updateApprover({ id: 'alice', displayName: 'Alice A.' }), { team: 'network' });
  t.like(await repo.updateApprover({ id: 'alice', team: 'sec-ops' }), { team: 'sec-ops', displayName: 'Alice A.' });
  t.like(await repo.updateApprover({ id: 'alice', team: null }), { team: null });

  const error = await t.throwsAsync(repo.addApprover({ id: 'carl', displayName: 'Carl', roles: [], team: 'net work' }));
  t.is((error as RepositoryError).kind, 'invalid-input');
  t.regex(error.message, /team: must be 1 to 64 letters, digits and \. _ -/);
  t.is(await repo.getApprover('carl'), null);
});
