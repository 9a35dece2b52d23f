/**
 * loadApprovalPolicy stores the rules of the policy it serves before it answers (orders name the policy by version
 * and hash only): once per hash and worker process, concurrent orders sharing the one write; a failed write fails
 * the activity (retried) and is tried again by the next call.
 */
import test from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import { RepositoryError, type ApprovalPolicyInput } from '../../infra/db/index.js';
import { policyHash } from '../../activities/order/index.js';
import { createPolicyActivity } from '../../activities/order/policy-activity.js';
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
  const activity = createPolicyActivity({ policies, repository: store.repository });
  let answered = 0;
  const calls = [1, 2, 3].map(() =>
    activity.loadApprovalPolicy({ environment: 'staging' }).then((policy) => (answered++, policy)),
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(answered, 0, 'nobody is answered before the rules are stored');
  t.is(store.writes.length, 1, 'one write for the three callers');
  release();
  const answers = await Promise.all(calls);
  const hash = policyHash(defaultApprovalPolicies().staging);
  for (const answer of answers)
    t.deepEqual(answer, { version: 'unit-1', hash, policy: defaultApprovalPolicies().staging });
  t.deepEqual(store.writes, [{ hash, policy: defaultApprovalPolicies().staging }]);

  await activity.loadApprovalPolicy({ environment: 'staging' });
  t.is(store.writes.length, 1, 'a hash this process stored is not stored again');
  await activity.loadApprovalPolicy({ environment: 'production' });
  t.deepEqual(
    store.writes.map((write) => write.hash),
    [hash, policyHash(defaultApprovalPolicies().production)],
    'another hash is stored once too',
  );
});

test('the policy is served without a database: the rules are then marked unstored, for the journal to carry, and the next read stores them', async (t) => {
  let fail = true;
  const store = storeThat(() =>
    fail ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) : Promise.resolve(),
  );
  const activity = createPolicyActivity({ policies, repository: store.repository });
  const hash = policyHash(defaultApprovalPolicies().staging);
  t.deepEqual(await activity.loadApprovalPolicy({ environment: 'staging' }), {
    version: 'unit-1',
    hash,
    policy: defaultApprovalPolicies().staging,
    unstored: true,
  });
  fail = false;
  t.deepEqual(
    await activity.loadApprovalPolicy({ environment: 'staging' }),
    { version: 'unit-1', hash, policy: defaultApprovalPolicies().staging },
    'stored by the next read',
  );
  t.is(store.writes.length, 2);
});

test('other rules stored under the same hash fail the read for good', async (t) => {
  const store = storeThat(() =>
    Promise.reject(new RepositoryError('conflict', 'storeApprovalPolicy: other rules are stored under hash x')),
  );
  const activity = createPolicyActivity({ policies, repository: store.repository });
  const error = await t.throwsAsync(activity.loadApprovalPolicy({ environment: 'staging' }));
  t.true(error instanceof ApplicationFailure && error.nonRetryable && error.type === 'PolicyNotStored');
});
