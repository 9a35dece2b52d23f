/** gate.ts: lookup, validation, the approval gate and re-quoting, until the quote to buy is approved and fresh. */
import anyTest, { type TestFn } from 'ava';
import type { WorkflowHandle } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import protoRoot from '@temporalio/proto';
import type { QuoteRecord } from '../../../workflows/order/activity-types.js';
import { newProgress, type OrderProgress } from '../../../workflows/order/progress.js';
import { waitFor } from '../../helpers/wait.js';
import { gateWorkflow, policyWorkflow, progressQuery, testCancel, testVote } from './fixtures/module-workflows.js';
import { entriesOf, fakeActivities, quoteOf, refuse, untilCancelled } from './fixtures/fake-activities.js';
import { useModuleEnv } from './fixtures/harness.js';
import { APPROVERS, governing, HOUR, orderRequest, TARGETS } from './fixtures/order-input.js';

const test = anyTest as TestFn<unknown>;
const env = useModuleEnv(test);

const approve = (approverId: string, monthlyRate: number) => ({
  approverId,
  decision: 'approve' as const,
  monthlyRate,
  currency: 'USD',
});
const states = (progress: OrderProgress) => progress.timeline.map((line) => line.state);

/** Waits until the order is in round number `quoteNumber` (1 = the first quote's). */
async function inRound(handle: WorkflowHandle, quoteNumber = 1) {
  return waitFor(
    async () => {
      const progress = await handle.query(progressQuery).catch(() => undefined);
      return progress?.state === 'AWAITING_APPROVAL' && progress.round?.quoteNumber === quoteNumber
        ? progress
        : undefined;
    },
    20_000,
    `round ${quoteNumber}`,
  );
}

/** An order whose approved quote was bought uncertainly and found not created: the gate is passed again. */
async function approvedEarlier(quotedAgoMs: number): Promise<OrderProgress> {
  const now = await env.temporal.env.currentTimeMs();
  const quote: QuoteRecord = { monthlyRate: 1618.2, currency: 'USD', quotedAt: now - quotedAgoMs };
  const progress = newProgress();
  progress.state = 'BUY_UNCERTAIN';
  progress.seq = 20;
  progress.targets = TARGETS;
  progress.quotes.push(quote);
  progress.approved = quote;
  progress.buyAttempts = 1;
  return progress;
}

test.serial(
  'a quote below the auto-approve line is approved by the policy at once: looked up, validated once, no round',
  async (t) => {
    const fake = fakeActivities({
      lookUpLocation: [{ location: TARGETS.location, warnings: ['two locations matched "Sydney"; chose Sydney SY1'] }],
      validateOrder: [quoteOf(800)],
    });
    const outcome = await env.withWorker(fake, async (start) =>
      (await start(gateWorkflow, { request: orderRequest('G-1'), governing: governing() })).result(),
    );
    t.is(outcome.result, undefined);
    t.deepEqual(states(outcome.progress), ['LOOKING_UP', 'VALIDATING', 'APPROVED']);
    t.is(outcome.progress.approved?.monthlyRate, 800);
    t.deepEqual(outcome.progress.targets?.location, TARGETS.location);
    t.is(fake.callsOf('validateOrder').length, 1, 'a quote just validated is not validated again');
    t.is(fake.callsOf('loadApprovers').length, 0);
    t.deepEqual(
      entriesOf(fake.written(), 'note').map((note) => note.message),
      ['two locations matched "Sydney"; chose Sydney SY1'],
    );
    t.deepEqual(
      fake.callsOf('validateOrder')[0].input.targets,
      outcome.progress.targets,
      'validated with the targets looked up',
    );
  },
);

test.serial(
  'after approval the quote is validated again; a price within the allowance is bought without a new round',
  async (t) => {
    const fake = fakeActivities({ validateOrder: [quoteOf(1618.2), quoteOf(1640)] }); // +1.35 %, the policy allows 2 %
    const outcome = await env.withWorker(fake, async (start) => {
      const handle = await start(gateWorkflow, { request: orderRequest('G-2'), governing: governing() });
      await inRound(handle);
      await handle.executeUpdate(testVote, { args: [approve('fiona', 1618.2)] });
      return handle.result();
    });
    t.is(outcome.result, undefined);
    t.deepEqual(states(outcome.progress), [
      'LOOKING_UP',
      'VALIDATING',
      'AWAITING_APPROVAL',
      'APPROVED',
      'VALIDATING',
      'APPROVED',
    ]);
    t.deepEqual(outcome.progress.timeline.at(-1)?.reason, 're-validated at 1640 USD: within the approval given');
    t.is(outcome.progress.approved?.monthlyRate, 1640, 'the price to buy at is the one just validated');
    t.deepEqual(
      outcome.progress.quotes.map((quote) => quote.monthlyRate),
      [1618.2, 1640],
    );
    t.is(fake.callsOf('loadApprovers').length, 1, 'one round only');
    t.deepEqual(
      entriesOf(fake.written(), 'quote').map((entry) => [entry.quoteNumber, entry.quote.monthlyRate]),
      [
        [1, 1618.2],
        [2, 1640],
      ],
    );
  },
);

test.serial('a price that rose beyond the allowance after approval opens a new round on the new quote', async (t) => {
  const fake = fakeActivities({ validateOrder: [quoteOf(1618.2), quoteOf(1700), quoteOf(1700)] }); // +5 %
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await start(gateWorkflow, { request: orderRequest('G-3'), governing: governing() });
    await inRound(handle);
    await handle.executeUpdate(testVote, { args: [approve('fiona', 1618.2)] });
    const second = await inRound(handle, 2);
    t.is(second.round?.quote.monthlyRate, 1700);
    t.deepEqual(second.round?.votes, [], 'the new round starts with no votes');
    t.is(second.round?.tier.name, 'team');
    t.is(
      second.timeline.at(-1)?.reason,
      'the monthly rate rose from 1618.2 USD to 1700 USD, more than the policy allows without a new approval',
    );
    await handle.executeUpdate(testVote, { args: [approve('fiona', 1700)] });
    return handle.result();
  });
  t.is(outcome.result, undefined);
  t.deepEqual(states(outcome.progress), [
    'LOOKING_UP',
    'VALIDATING',
    'AWAITING_APPROVAL',
    'APPROVED',
    'VALIDATING',
    'AWAITING_APPROVAL',
    'APPROVED',
    'VALIDATING',
    'APPROVED',
  ]);
  t.is(outcome.progress.approved?.monthlyRate, 1700);
  t.is(fake.callsOf('validateOrder').length, 3, 'validated again after the second approval too');
});

test.serial('a rise into a higher tier asks that tier', async (t) => {
  const fake = fakeActivities({ validateOrder: [quoteOf(1618.2), quoteOf(3500)] });
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await start(gateWorkflow, { request: orderRequest('G-4'), governing: governing() });
    await inRound(handle);
    await handle.executeUpdate(testVote, { args: [approve('fiona', 1618.2)] });
    const second = await inRound(handle, 2);
    t.is(second.round?.tier.name, 'finance');
    t.is(second.round?.tier.approvals, 2);
    await handle.executeUpdate(testCancel, { args: [{ actor: 'alice', reason: 'too dear now' }] });
    return handle.result();
  });
  t.deepEqual(outcome.result, { state: 'CANCELLED', actor: 'alice', reason: 'too dear now' });
});

test.serial(
  'a stale approved quote (an uncertain buy found not created) is validated again before buying',
  async (t) => {
    const fake = fakeActivities({ validateOrder: [quoteOf(1618.2)] });
    const progress = await approvedEarlier(13 * HOUR); // the policy's maxQuoteAge is 12 h
    const outcome = await env.withWorker(fake, async (start) =>
      (await start(gateWorkflow, { request: orderRequest('G-5'), governing: governing(), progress })).result(),
    );
    t.is(outcome.result, undefined);
    t.deepEqual(states(outcome.progress), ['VALIDATING', 'APPROVED']);
    t.is(
      outcome.progress.timeline[0].reason,
      'validating again before buying, so the price charged is the price approved',
    );
    t.is(fake.callsOf('lookUpLocation').length, 0, 'the targets are known');
    const [old, fresh] = outcome.progress.quotes;
    t.true(fresh.quotedAt - old.quotedAt >= 13 * HOUR);
    t.deepEqual(outcome.progress.approved, fresh);
  },
);

test.serial(
  'a quote approved after a long round (older than maxQuoteAge) is validated again, and bought on the approval when unchanged',
  async (t) => {
    const fake = fakeActivities({ validateOrder: [quoteOf(1618.2), quoteOf(1618.2)] });
    const outcome = await env.withWorker(fake, async (start) => {
      const handle = await start(gateWorkflow, { request: orderRequest('G-6'), governing: governing() });
      await inRound(handle);
      await env.temporal.env.sleep(13 * HOUR);
      await handle.executeUpdate(testVote, { args: [approve('fiona', 1618.2)] });
      return handle.result();
    });
    t.is(outcome.result, undefined);
    const [first, second] = outcome.progress.quotes;
    t.true(second.quotedAt - first.quotedAt >= 13 * HOUR, 'a second quote, after the wait');
    t.deepEqual(states(outcome.progress).slice(-2), ['VALIDATING', 'APPROVED']);
    t.is(fake.callsOf('loadApprovers').length, 1);
  },
);

test.serial(
  'a round resumed from the last run (resumeRound) is decided first, then the quote is validated again',
  async (t) => {
    const fake = fakeActivities({ validateOrder: [quoteOf(1618.2)] });
    const now = await env.temporal.env.currentTimeMs();
    const quote: QuoteRecord = { monthlyRate: 1618.2, currency: 'USD', quotedAt: now - HOUR };
    const progress = newProgress();
    progress.state = 'AWAITING_APPROVAL';
    progress.seq = 12;
    progress.targets = TARGETS;
    progress.quotes.push(quote);
    progress.round = {
      tier: { index: 0, name: 'team', roles: ['finance-approver'], approvals: 1 },
      quote,
      quoteNumber: 1,
      approvers: APPROVERS,
      votes: [],
      startedAt: now - HOUR,
      deadline: now + 71 * HOUR,
      remindersSent: 0,
    };
    const outcome = await env.withWorker(fake, async (start) => {
      const handle = await start(gateWorkflow, {
        request: orderRequest('G-7'),
        governing: governing(),
        progress,
        resumeRound: true,
      });
      await inRound(handle);
      t.is(fake.callsOf('validateOrder').length, 0, 'nothing validated before the round is decided');
      await handle.executeUpdate(testVote, { args: [approve('fiona', 1618.2)] });
      return handle.result();
    });
    t.is(outcome.result, undefined);
    t.deepEqual(states(outcome.progress), ['APPROVED', 'VALIDATING', 'APPROVED']);
    t.is(fake.callsOf('lookUpLocation').length, 0);
  },
);

test.serial('a cancel during the round ends CANCELLED, by whom and why; nothing more is validated', async (t) => {
  const fake = fakeActivities({ validateOrder: [quoteOf(1618.2)] });
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await start(gateWorkflow, { request: orderRequest('G-8'), governing: governing() });
    await inRound(handle);
    await handle.executeUpdate(testCancel, { args: [{ actor: 'alice', reason: 'the project was dropped' }] });
    return handle.result();
  });
  t.deepEqual(outcome.result, { state: 'CANCELLED', actor: 'alice', reason: 'the project was dropped' });
  t.is(outcome.progress.state, 'AWAITING_APPROVAL', 'the gate says how it ended; the caller moves the order');
  t.is(fake.callsOf('validateOrder').length, 1);
});

test.serial('a cancel while a validate is in flight stops the validate and ends CANCELLED', async (t) => {
  // The update reaches the workflow only when its task, held open by the local activity, is heartbeated (about
  // every 8 s with the default 10 s task timeout): this test takes that long.
  t.timeout(90_000);
  const fake = fakeActivities({ validateOrder: [untilCancelled] });
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await start(gateWorkflow, { request: orderRequest('G-9'), governing: governing() });
    await fake.called('validateOrder');
    await handle.executeUpdate(testCancel, { args: [{ actor: 'alice', reason: 'wrong size' }] });
    return handle.result();
  });
  t.deepEqual(outcome.result, { state: 'CANCELLED', actor: 'alice', reason: 'wrong size' });
  t.deepEqual(states(outcome.progress), ['LOOKING_UP', 'VALIDATING']);
  t.deepEqual(outcome.progress.quotes, [], 'no quote from the abandoned validate');
  t.true(fake.callsOf('validateOrder')[0].cancelled, 'the validate was asked to stop');
});

test.serial('the workflow cancelled from Temporal (no cancel in the inbox) ends CANCELLED by "temporal"', async (t) => {
  const fake = fakeActivities({ validateOrder: [quoteOf(1618.2)] });
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await start(gateWorkflow, { request: orderRequest('G-10'), governing: governing() });
    await inRound(handle);
    await handle.cancel();
    return handle.result();
  });
  t.deepEqual(outcome.result, { state: 'CANCELLED', actor: 'temporal', reason: 'the workflow was cancelled' });
  t.true(
    fake.callsOf('recordJournal').every((call) => call.outcome === 'ok'),
    'the journal is still written after the cancel',
  );
});

test.serial('a validate the API refuses ends FAILED with its message, shown as the last error', async (t) => {
  const fake = fakeActivities({
    validateOrder: [refuse('the API refused the order: no capacity in Sydney', 'ValidationRefused')],
  });
  const outcome = await env.withWorker(fake, async (start) =>
    (await start(gateWorkflow, { request: orderRequest('G-11'), governing: governing() })).result(),
  );
  t.deepEqual(outcome.result, {
    state: 'FAILED',
    actor: 'engine',
    reason: 'the API refused the order: no capacity in Sydney',
  });
  t.like(outcome.progress.lastError, {
    type: 'ValidationRefused',
    message: 'the API refused the order: no capacity in Sydney',
  });
  t.deepEqual(
    entriesOf(fake.written(), 'error').map((entry) => entry.message),
    ['the API refused the order: no capacity in Sydney'],
  );
  t.is(fake.callsOf('validateOrder').length, 1, 'a final refusal is not retried');
});

test.serial('a lookup the API refuses ends FAILED with its message', async (t) => {
  const fake = fakeActivities({
    lookUpLocation: [refuse('no location matches metro "Sydney" in market "NZ"', 'LookupFailed')],
  });
  const outcome = await env.withWorker(fake, async (start) =>
    (await start(gateWorkflow, { request: orderRequest('G-12'), governing: governing() })).result(),
  );
  t.deepEqual(outcome.result, {
    state: 'FAILED',
    actor: 'engine',
    reason: 'no location matches metro "Sydney" in market "NZ"',
  });
  t.deepEqual(states(outcome.progress), ['LOOKING_UP']);
  t.is(fake.callsOf('validateOrder').length, 0);
});

// The reads before the gate: the location and the image side by side, each its own local activity.

test.serial(
  'the location and the image are looked up side by side, each on its own, and the warnings of both are noted',
  async (t) => {
    // The location answers only once the image lookup has begun: the two must be out at the same time.
    const fake: ReturnType<typeof fakeActivities> = fakeActivities({
      lookUpLocation: [
        async () => (
          await fake.called('lookUpImage'),
          { location: TARGETS.location, warnings: ['location: two locations matched "Sydney"; chose Sydney SY1'] }
        ),
      ],
      lookUpImage: [{ image: TARGETS.image, kind: 'K9', warnings: ["vnics: none given; the kind's default is used"] }],
      validateOrder: [quoteOf(800)],
    });
    const outcome = await env.withWorker(fake, async (start) =>
      (await start(gateWorkflow, { request: orderRequest('G-20'), governing: governing() })).result(),
    );
    t.is(outcome.result, undefined);
    t.deepEqual(outcome.progress.targets, {
      ...TARGETS,
      warnings: [
        'location: two locations matched "Sydney"; chose Sydney SY1',
        "vnics: none given; the kind's default is used",
      ],
    });
    t.is(fake.callsOf('lookUpLocation').length, 1);
    t.is(fake.callsOf('lookUpImage').length, 1);
    t.deepEqual(
      entriesOf(fake.written(), 'note').map((note) => note.message),
      outcome.progress.targets!.warnings,
    );
  },
);

test.serial(
  "both lookups refused: the order fails with the location's refusal and notes the image's, nothing validated",
  async (t) => {
    const fake = fakeActivities({
      lookUpLocation: [refuse('no location matches metro "Sydney" in market "NZ"', 'LookupFailed')],
      lookUpImage: [refuse('no image matches vendor "Fortinet" version "9.9"', 'LookupFailed')],
    });
    const outcome = await env.withWorker(fake, async (start) =>
      (await start(gateWorkflow, { request: orderRequest('G-24'), governing: governing() })).result(),
    );
    t.deepEqual(outcome.result, {
      state: 'FAILED',
      actor: 'engine',
      reason: 'no location matches metro "Sydney" in market "NZ"',
    });
    t.deepEqual(states(outcome.progress), ['LOOKING_UP']);
    t.deepEqual(
      entriesOf(fake.written(), 'note').map((note) => note.message),
      ['the image could not be looked up either: no image matches vendor "Fortinet" version "9.9"'],
    );
    t.is(fake.callsOf('validateOrder').length, 0);
  },
);

test.serial("the policy comes with the run's admission: rules it could not store travel in the journal", async (t) => {
  const fake = fakeActivities({ beginRun: [{ admitted: true, policy: { ...governing(), unstored: true } }] });
  const outcome = await env.withWorker(fake, async (start) =>
    (await start(policyWorkflow, { request: orderRequest('G-21'), governing: governing() })).result(),
  );
  t.is(outcome.result, undefined);
  t.deepEqual(outcome.progress.governing, { ...governing(), unstored: true }, 'the policy read governs the order');
  t.deepEqual(
    entriesOf(fake.written(), 'policy').map((entry) => entry.policy),
    [governing().policy],
  );
});

test.serial(
  'no policy for the environment ends the order FAILED as an invalid policy, before any lookup',
  async (t) => {
    const fake = fakeActivities({
      beginRun: [{ admitted: true, policyRefused: 'the workers hold no approval policy for staging' }],
    });
    const outcome = await env.withWorker(fake, async (start) =>
      (await start(policyWorkflow, { request: orderRequest('G-25'), governing: governing() })).result(),
    );
    t.deepEqual(outcome.result, {
      state: 'FAILED',
      actor: 'engine',
      reason: 'invalid approval policy: the workers hold no approval policy for staging',
    });
    t.like(outcome.progress.lastError, { type: 'InvalidPolicy' });
    t.is(outcome.progress.governing, undefined);
    t.is(fake.callsOf('lookUpLocation').length, 0);
  },
);

test.serial('a run the workers do not admit fails at once: no policy, no lookup, nothing journaled', async (t) => {
  const fake = fakeActivities({
    beginRun: [{ admitted: false, reason: 'no ticket was registered for this workflow by the order API' }],
  });
  const failure = await env.withWorker(fake, async (start) =>
    t.throwsAsync((await start(policyWorkflow, { request: orderRequest('G-27'), governing: governing() })).result()),
  );
  const cause = (failure as { cause?: ApplicationFailure } | undefined)?.cause;
  t.is(cause?.type, 'RUN_REFUSED');
  t.regex(cause?.message ?? '', /the workers refused this run: no ticket was registered/);
  t.deepEqual(
    fake.calls.map((call) => call.name),
    ['beginRun'],
  );
  t.deepEqual(fake.written(), []);
});

test.serial('a cancel while the validation is in flight stops it and ends CANCELLED', async (t) => {
  t.timeout(90_000); // the update waits for the workflow task, held open by the local activity, to be heartbeated
  const fake = fakeActivities({ validateOrder: [untilCancelled] });
  const outcome = await env.withWorker(fake, async (start) => {
    const handle = await start(gateWorkflow, { request: orderRequest('G-26'), governing: governing() });
    await fake.called('validateOrder');
    await handle.executeUpdate(testCancel, { args: [{ actor: 'alice', reason: 'wrong size' }] });
    return handle.result();
  });
  t.deepEqual(outcome.result, { state: 'CANCELLED', actor: 'alice', reason: 'wrong size' });
  t.deepEqual(states(outcome.progress), ['LOOKING_UP', 'VALIDATING']);
  t.true(fake.callsOf('validateOrder')[0].cancelled, 'the validation was asked to stop');
});

// progress.ts: an illegal transition is "a bug, not a business outcome: fail the workflow task so the order parks
// visibly, unchanged". passGate catches every error of the steps before the buy, so a bug there (here: the gate
// entered in BUYING, from which VALIDATING is not allowed) ends the order FAILED as if the API had refused it,
// with "the order could not be validated: illegal order transition BUYING -> VALIDATING" as the reason.
test.serial(
  'an illegal transition inside the gate parks the order (workflow task fails) instead of ending it FAILED',
  async (t) => {
    const fake = fakeActivities({ validateOrder: [quoteOf(1618.2)] });
    const progress = await approvedEarlier(HOUR);
    progress.state = 'BUYING';
    const { EventType } = protoRoot.temporal.api.enums.v1;
    const seen = await env.withWorker(fake, async (start) => {
      const handle = await start(gateWorkflow, { request: orderRequest('G-13'), governing: governing(), progress });
      const what = await waitFor(async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        if (events.some((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED))
          return 'workflow task failed';
        if (events.some((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)) {
          return `completed: ${JSON.stringify((await handle.result()).result)}`;
        }
        return undefined;
      });
      if (what === 'workflow task failed') await handle.terminate('test done');
      return what;
    });
    t.is(seen, 'workflow task failed');
  },
);
