/** provisioning.ts: the follow-up of a bought product until it is LIVE, failed, or stalled at the deadline. */
import anyTest, { type TestFn } from 'ava';
import { ApplicationFailure } from '@temporalio/activity';
import type { ProvisioningPlan } from '../../../domain/lifecycle/index.js';
import type { ProductReadAnswer } from '../../../workflows/order/activity-types.js';
import { newProgress, type OrderProgress } from '../../../workflows/order/progress.js';
import { provisioningWorkflow } from './fixtures/module-workflows.js';
import { entriesOf, fakeActivities, toldOf, type Fake } from './fixtures/fake-activities.js';
import { useModuleEnv, type Start } from './fixtures/harness.js';
import { governing, HOUR, orderRequest, TARGETS } from './fixtures/order-input.js';

const test = anyTest as TestFn<unknown>;
const env = useModuleEnv(test);

const UID = '3f1c2a9e-7b4d-4e1a-9c2b-5d6e7f8a9b0c';
const MINUTE = 60_000;
const PLAN: ProvisioningPlan = {
  firstPollMs: 15_000,
  maxPollMs: 5 * MINUTE,
  reminderMs: 30 * MINUTE,
  deadlineMs: 2 * HOUR,
};
const CALLBACK_URL = 'https://tickets.example.com/hooks/mve';

const status = (provisioningStatus: string): ProductReadAnswer => ({ found: true, provisioningStatus });
const missing = (code: number): ProductReadAnswer => ({ found: false, status: code });
const apiDown = () => {
  throw ApplicationFailure.retryable('the API answered 503', 'ApiServerError');
};

/** An order just bought: BOUGHT, its product DEPLOYABLE as the buy answered. */
function bought(): OrderProgress {
  const progress = newProgress();
  progress.state = 'BOUGHT';
  progress.seq = 12;
  progress.targets = TARGETS;
  progress.buyAttempts = 1;
  progress.product = { technicalServiceUid: UID, provisioningStatus: 'DEPLOYABLE' };
  return progress;
}

async function follow(start: Start, ticketId: string) {
  const handle = await start(provisioningWorkflow, {
    request: orderRequest(ticketId, { callbackUrl: CALLBACK_URL }),
    governing: governing(),
    progress: bought(),
    plan: PLAN,
  });
  return handle.result();
}

/** Equal but for the seconds the reads and workflow tasks take. */
const within = (actual: number, expected: number) => actual >= expected && actual < expected + 5_000;

const notified = (fake: Fake, event: string) => toldOf(fake).filter((told) => told.event === event);

test.serial(
  'DEPLOYABLE, CONFIGURED, LIVE: each change journaled and told, reads spaced by the growing wait',
  async (t) => {
    const fake = fakeActivities({
      readProduct: [
        status('DEPLOYABLE'),
        status('DEPLOYABLE'),
        status('CONFIGURED'),
        status('CONFIGURED'),
        status('LIVE'),
      ],
    });
    const { result, progress, endedAt } = await env.withWorker(fake, (start) => follow(start, 'MOD-PROV-LIVE'));
    t.is(result.state, 'LIVE');
    t.is(progress.state, 'LIVE');
    t.deepEqual(
      progress.provisioning?.statuses.map((seen) => seen.status),
      ['DEPLOYABLE', 'CONFIGURED', 'LIVE'],
    );
    t.is(progress.product?.provisioningStatus, 'LIVE');
    // Reads right after the buy, then after 15 s, 30 s, 60 s and 120 s.
    t.is(fake.callsOf('readProduct').length, 5);
    // (The reads themselves take a moment of the workflow's clock too.)
    t.true(within(endedAt - progress.provisioning!.startedAt, (15 + 30 + 60 + 120) * 1000));

    const written = fake.written();
    t.deepEqual(
      entriesOf(written, 'product').map((entry) => entry.product.provisioningStatus),
      ['CONFIGURED', 'LIVE'],
    );
    t.deepEqual(
      entriesOf(written, 'transition').map((entry) => `${entry.from}->${entry.to}`),
      ['BOUGHT->PROVISIONING', 'PROVISIONING->LIVE'],
    );
    t.deepEqual(
      notified(fake, 'provisioning-changed').map(
        (told) => told.entry?.type === 'note' && told.entry.details?.['provisioningStatus'],
      ),
      ['CONFIGURED', 'LIVE'],
    );
  },
);

test.serial('the first answer 404 or 405: the API does not offer the read, and the order ends at BOUGHT', async (t) => {
  for (const code of [404, 405]) {
    const fake = fakeActivities({ readProduct: [missing(code)] });
    const { result, progress } = await env.withWorker(fake, (start) => follow(start, `MOD-PROV-NOREAD-${code}`));
    t.is(result.state, 'BOUGHT');
    t.is(progress.state, 'BOUGHT');
    t.is(progress.provisioning, undefined, 'nothing to show of a follow-up that never was');
    t.is(fake.callsOf('readProduct').length, 1);
    t.deepEqual(entriesOf(fake.written(), 'transition'), []);
    t.regex(entriesOf(fake.written(), 'note')[0]?.message ?? '', new RegExp(`answered ${code}.*ends at BOUGHT`));
  }
});

test.serial('a product the API knew and then does not: PROVISIONING_FAILED', async (t) => {
  const fake = fakeActivities({ readProduct: [status('CONFIGURED'), missing(404)] });
  const { result, progress } = await env.withWorker(fake, (start) => follow(start, 'MOD-PROV-GONE'));
  t.is(result.state, 'PROVISIONING_FAILED');
  t.regex(progress.lastError?.message ?? '', /no longer knows product .* \(HTTP 404\)/);
});

test.serial(
  'a failed status ends the order PROVISIONING_FAILED at once, whatever the case of its spelling',
  async (t) => {
    const fake = fakeActivities({ readProduct: [status('DEPLOYABLE'), status('Decommissioned')] });
    const { result, progress } = await env.withWorker(fake, (start) => follow(start, 'MOD-PROV-FAILED'));
    t.is(result.state, 'PROVISIONING_FAILED');
    t.is(progress.lastError?.type, 'ProvisioningFailed');
    t.is(fake.callsOf('readProduct').length, 2);
  },
);

test.serial('reads that fail are one last error, cleared by the next answer; the follow-up goes on', async (t) => {
  // Each read makes three tries: two reads fail, then the API answers.
  const fake = fakeActivities({
    readProduct: [status('CONFIGURED'), apiDown, apiDown, apiDown, apiDown, apiDown, apiDown, status('LIVE')],
  });
  const { result, progress } = await env.withWorker(fake, (start) => follow(start, 'MOD-PROV-FLAKY'));
  t.is(result.state, 'LIVE');
  t.is(progress.lastError, undefined);
  t.is(progress.provisioning?.failedReads, 0);
  const errors = entriesOf(fake.written(), 'error').map((entry) => entry.message);
  t.is(errors.length, 2, 'one error for the run of failed reads, one clearing it');
  t.regex(errors[0] ?? '', /503.*reads it again later/);
  t.is(errors[1], null);
});

test.serial(
  'stuck: reminders every 30 minutes, then PROVISIONING_STALLED at the deadline after one last read',
  async (t) => {
    const fake = fakeActivities({}, { readProduct: status('CONFIGURED') });
    const { result, progress, endedAt } = await env.withWorker(fake, (start) => follow(start, 'MOD-PROV-STUCK'));
    t.is(result.state, 'PROVISIONING_STALLED');
    t.true(
      within(endedAt - progress.provisioning!.startedAt, PLAN.deadlineMs),
      'ends at the deadline, not a poll later',
    );
    t.is(progress.provisioning?.remindersSent, 3);
    t.is(notified(fake, 'provisioning-slow').length, 3);
    t.is(progress.lastError?.type, 'ProvisioningStalled');
    // 0, 15 s, 45 s, 1 m 45 s, 3 m 45 s, then every 5 minutes (and at each reminder) until 2 h.
    t.true(fake.callsOf('readProduct').length < 40, `${fake.callsOf('readProduct').length} reads in two hours`);
  },
);
