/**
 * loadApprovalPolicy stores the rules of the policy it serves before it answers (orders name the policy by version
 * and hash only): once per hash and worker process, concurrent orders sharing the one write; a failed write fails
 * the activity (retried) and is tried again by the next call.
 */
import test from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import { RepositoryError, type ApprovalPolicyInput } from '../../infra/db/index.js';
import { policyHash } from '../../activities/order/index.js';
import { createPolicyActivity, createPolicyReader } from '../../activities/order/policy-activity.js';
import { defaultApprovalPolicies } from '../../domain/approval/index.js';

const policies = { version: 'unit-1', source: 'test', policies: defaultApprovalPolicies() };

function storeThat(answer: (input: ApprovalPolicyInput) => Promise<void>) {
  const writes: ApprovalPolicyInput[] = [];
  return {
    writes,
    repository: {
      storeApprovalPolicy: (input: ApprovalPolicyInput) => {
        writes.push(input);
        return answer(input);
      },
    },
  };
}

test('the rules are stored before the policy is served, once per hash: concurrent callers share the one write', async (t) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const store = storeThat(() => held);
  const { loadApprovalPolicy } = createPolicyActivity(createPolicyReader({ policies, repository: store.repository }));
  let answered = 0;
  const calls = [1, 2, 3].map(() => loadApprovalPolicy({ environment: 'staging' }).then((policy) => (answered++, policy)));
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(answered, 0, 'nobody is answered before the rules are stored');
  t.is(store.writes.length, 1, 'one write for the three callers');
  release();
  const answers = await Promise.all(calls);
  const hash = policyHash(defaultApprovalPolicies().staging);
  for (const answer of answers) t.deepEqual(answer, { version: 'unit-1', hash, policy: defaultApprovalPolicies().staging });
  t.deepEqual(store.writes, [{ hash, policy: defaultApprovalPolicies().staging }]);

  await loadApprovalPolicy({ environment: 'staging' });
  t.is(store.writes.length, 1, 'a hash this process stored is not stored again');
  await loadApprovalPolicy({ environment: 'production' });
  t.deepEqual(store.writes.map((write) => write.hash), [hash, policyHash(defaultApprovalPolicies().production)], 'another hash is stored once too');
});

test('a write that fails fails the activity (retried), and the next call writes again', async (t) => {
  let fail = true;
  const store = storeThat(async () => {
    if (fail) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
  });
  const { loadApprovalPolicy } = createPolicyActivity(createPolicyReader({ policies, repository: store.repository }));
  const error = await t.throwsAsync(loadApprovalPolicy({ environment: 'staging' }));
  t.regex(error!.message, /ECONNREFUSED/);
  t.false(error instanceof ApplicationFailure && error.nonRetryable, 'retried');
  fail = false;
  t.is((await loadApprovalPolicy({ environment: 'staging' })).hash, policyHash(defaultApprovalPolicies().staging));
  t.is(store.writes.length, 2);
});

test('the read before the gate answers without a database: the rules are then marked unstored, for the journal to carry', async (t) => {
  let fail = true;
  const store = storeThat(async () => {
    if (fail) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
  });
  const readPolicy = createPolicyReader({ policies, repository: store.repository });
  const hash = policyHash(defaultApprovalPolicies().staging);
  t.deepEqual(await readPolicy('staging', 'carry'), { version: 'unit-1', hash, policy: defaultApprovalPolicies().staging, unstored: true });
  fail = false;
  t.deepEqual(await readPolicy('staging', 'carry'), { version: 'unit-1', hash, policy: defaultApprovalPolicies().staging }, 'stored by the next read');
  t.is(store.writes.length, 2);
});

test('other rules stored under the same hash fail every read for good, carried or not', async (t) => {
  const store = storeThat(async () => {
    throw new RepositoryError('conflict', 'storeApprovalPolicy: other rules are stored under hash x');
  });
  const readPolicy = createPolicyReader({ policies, repository: store.repository });
  for (const whenUnstored of ['fail', 'carry'] as const) {
    const error = await t.throwsAsync(readPolicy('staging', whenUnstored));
    t.true(error instanceof ApplicationFailure && error.nonRetryable && error.type === 'PolicyNotStored', whenUnstored);
  }
});
