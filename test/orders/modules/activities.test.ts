/**
 * activities.ts: which of the order's activities are local (quick reads: a marker in history, inside the task that
 * needs them) and which are ordinary (the journal, the ticket system's callbacks), and how the buy (local, in its
 * workflow task) is protected from running twice.
 */
import anyTest, { type TestFn } from 'ava';
import { defaultPayloadConverter } from '@temporalio/common';
import protoRoot from '@temporalio/proto';
import { newProgress } from '../../../workflows/order/progress.js';
import { waitFor } from '../../helpers/wait.js';
import { buyWorkflow, gateWorkflow, progressQuery, testVote } from './fixtures/module-workflows.js';
import { fakeActivities, quoteOf } from './fixtures/fake-activities.js';
import { useModuleEnv } from './fixtures/harness.js';
import { governing, orderRequest, TARGETS } from './fixtures/order-input.js';

const test = anyTest as TestFn<unknown>;
const env = useModuleEnv(test);
const { EventType } = protoRoot.temporal.api.enums.v1;
type History = Awaited<ReturnType<ReturnType<typeof env.temporal.client.workflow.getHandle>['fetchHistory']>>;

/** The activities a run scheduled as ordinary activities, and those it ran as local ones (named in their markers). */
function activityKinds(history: History) {
  const events = history.events ?? [];
  const ordinary = events
    .filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
    .map((event) => event.activityTaskScheduledEventAttributes!.activityType!.name!);
  const local = events
    // Local activities leave markers of their own name; a patch leaves another.
    .filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity')
    .map((event) => {
      const payload = event.markerRecordedEventAttributes?.details?.['data']?.payloads?.[0];
      return payload
        ? (defaultPayloadConverter.fromPayload<{ activity_type?: string }>(payload).activity_type ?? '?')
        : '?';
    });
  return { ordinary: new Set(ordinary), local: new Set(local) };
}

test.serial(
  'lookup, validation and the approvers are local activities; the journal and the callbacks are ordinary ones',
  async (t) => {
    const fake = fakeActivities({ validateOrder: [quoteOf(1618.2), quoteOf(1618.2)] });
    const history = await env.withWorker(fake, async (start) => {
      const handle = await start(gateWorkflow, {
        request: orderRequest('A-1', { callbackUrl: 'https://tickets.example.com/hooks/mve' }),
        governing: governing(),
      });
      await waitFor(async () => ((await handle.query(progressQuery).catch(() => undefined))?.round ? true : undefined));
      await handle.executeUpdate(testVote, {
        args: [{ approverId: 'fiona', decision: 'approve', monthlyRate: 1618.2, currency: 'USD' }],
      });
      await handle.result();
      return handle.fetchHistory();
    });
    const { ordinary, local } = activityKinds(history);
    t.deepEqual([...local].sort(), ['loadApprovers', 'lookUpImage', 'lookUpLocation', 'validateOrder']);
    t.deepEqual([...ordinary].sort(), ['notifyTicketSystem', 'recordJournal']);
  },
);

test.serial(
  'the buy runs in the workflow task that decided it (a local activity) and Temporal never runs it twice',
  async (t) => {
    const fake = fakeActivities({
      buyOrder: [
        () => {
          throw new Error('worker lost the connection');
        },
      ],
      closeUnsentBuy: [true],
    });
    const now = await env.temporal.env.currentTimeMs();
    const progress = newProgress();
    progress.state = 'APPROVED';
    progress.targets = TARGETS;
    progress.quotes.push({ monthlyRate: 800, currency: 'USD', quotedAt: now });
    progress.approved = progress.quotes[0];
    const history = await env.withWorker(fake, async (start) => {
      const handle = await start(buyWorkflow, { request: orderRequest('A-2'), governing: governing(), progress });
      await handle.result();
      return handle.fetchHistory();
    });
    const { ordinary, local } = activityKinds(history);
    t.true(local.has('buyOrder'));
    t.false(ordinary.has('buyOrder'), 'no activity task of its own');
    // A buy that failed is not run again by Temporal: its attempt is settled (closed as never sent here) and the next
    // attempt is a new buy.
    t.deepEqual(
      fake.callsOf('buyOrder').map((call) => call.input.attempt),
      [1, 2],
    );
    t.is(fake.callsOf('closeUnsentBuy').length, 1);
  },
);
