/**
 * continue-as-new.ts, through the real orderWorkflow (with fake activities): an order that waits long enough
 * continues as a new run carrying its whole progress, and the new run resumes the same wait.
 */
import { randomBytes } from 'node:crypto';
import anyTest, { type TestFn } from 'ava';
import { WorkflowUpdateFailedError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import protoRoot from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { OrderClient } from '../../../client/orders/index.js';
import { Keyring } from '../../../codec/index.js';
import type { TicketRecord } from '../../../infra/db/index.js';
import { orderTaskQueue } from '../../../config/temporal.js';
import { approveUpdate, cancelUpdate, type VoteInput } from '../../../workflows/order/messages.js';
import type { orderWorkflow } from '../../../workflows/order/workflow.js';
import { signAction } from '../../../workflows/order/signed-action.js';
import { ENVIRONMENT, MONTHLY_RATE, ORDER_STATUS, TICKET_ID } from '../../../workflows/order/search-attributes.js';
import type { OrderWorkflowInput, OrderWorkflowOptions } from '../../../workflows/order/types.js';
import type { JournalEntry } from '../../../workflows/order/activity-types.js';
import { waitFor } from '../../helpers/wait.js';
import { entriesOf, fakeActivities, held, quoteOf, uncertain, type Fake } from './fixtures/fake-activities.js';
import { useModuleEnv } from './fixtures/harness.js';
import { HOUR, orderRequest } from './fixtures/order-input.js';
import { orderOf, workflowOf } from '../../helpers/orders.js';

const test = anyTest as TestFn<unknown>;
const env = useModuleEnv(test);
const actionKeys = Keyring.fromText(`test-action:${randomBytes(32).toString('base64')}`, 'test', 'action keys');
const { EventType } = protoRoot.temporal.api.enums.v1;
const UID = '0b7e6a52-2f1d-4c3e-8a9b-1c2d3e4f5a6b';

/**
 * The first run of each order started here, as the tickets' claims would hold them (the fake admission admits every
 * run): the order client signs for and sends to that chain.
 */
/** The run that claimed each workflow's ticket, as the admission would record it. */
const claimed = new Map<string, string>();
const tickets = {
  getTicketByWorkflow: (workflowId: string) =>
    Promise.resolve({ claimedRunId: claimed.get(workflowId) ?? null } as TicketRecord),
  // No order here ends outside the workflow: nothing to mark.
  markClosedInTemporal: () => Promise.resolve(),
};
const chainOf = (ticketId: string) => ({
  workflowId: workflowOf(ticketId),
  firstRunId: claimed.get(workflowOf(ticketId))!,
});

/** Starts the real order as the OrderClient does, with workflow options it does not pass (the ones under test). */
async function startOrder(
  client: Client,
  base: string,
  ticketId: string,
  options: OrderWorkflowOptions,
  requestOverrides: Record<string, unknown> = {},
) {
  const input: OrderWorkflowInput = { request: orderRequest(ticketId, requestOverrides), options };
  const handle = await client.workflow.start('orderWorkflow', {
    workflowId: workflowOf(ticketId),
    taskQueue: orderTaskQueue(base, 'staging'),
    args: [input],
    typedSearchAttributes: [
      { key: TICKET_ID, value: ticketId },
      { key: ENVIRONMENT, value: 'staging' },
      { key: ORDER_STATUS, value: 'RECEIVED' },
    ],
  });
  claimed.set(workflowOf(ticketId), handle.firstExecutionRunId);
  return handle;
}

const latest = (client: Client, ticketId: string) => client.workflow.getHandle(workflowOf(ticketId)).describe();

/** Every run of the order, first to last, following each run's continued-as-new event. */
async function runsOf(client: Client, workflowId: string, firstRunId: string) {
  const runs = [];
  for (let runId: string | undefined = firstRunId; runId;) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    runs.push({ runId, history });
    const last = history.events?.at(-1);
    runId =
      last?.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW
        ? (last.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined)
        : undefined;
  }
  return runs;
}

/** The input a run was started with (no codec in these tests: plain JSON). */
function inputOf(history: Awaited<ReturnType<typeof runsOf>>[number]['history']): OrderWorkflowInput {
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return defaultPayloadConverter.fromPayload(payload!);
}

async function replays(
  t: { is: (a: unknown, b: unknown, m?: string) => void },
  workflowId: string,
  runs: Awaited<ReturnType<typeof runsOf>>,
) {
  const { orderWorkflowBundle } = await import('../../../worker/index.js');
  const results = Worker.runReplayHistories(
    { workflowBundle: await orderWorkflowBundle(actionKeys) },
    runs.map(({ history }) => ({ workflowId, history })),
  );
  let replayed = 0;
  for await (const result of results) {
    t.is(result.error?.message, undefined, `run ${replayed + 1} replays`);
    replayed++;
  }
  t.is(replayed, runs.length);
}

/** Journal entries in sequence order, and whether any sequence number was written twice. */
function journalSeqs(fake: Fake) {
  const seqs = fake.written().map((entry) => entry.seq);
  return { seqs, unique: new Set(seqs).size === seqs.length };
}

test.serial(
  'an order waiting in an approval round continues as new, carrying its progress; the round resumes and the order is bought',
  async (t) => {
    const fake = fakeActivities({}, { validateOrder: quoteOf(4000) }); // the two-approver "finance" tier
    await env.withOrderWorker(fake, actionKeys, async (base) => {
      const { client } = env.temporal;
      const orders = new OrderClient({
        client,
        taskQueue: base,
        actionKeys,
        tickets,
        clock: () => env.temporal.env.currentTimeMs(),
      });
      const ticketId = 'CAN-ROUND';
      const workflowId = workflowOf(ticketId);
      const first = await startOrder(client, base, ticketId, { continueAsNewAfterEvents: 30 });
      const waiting = await waitFor(async () => {
        const status = await orders.status(orderOf(ticketId)).catch(() => undefined);
        return status?.state === 'AWAITING_APPROVAL' ? status : undefined;
      });

      // fiona's vote (signed here, so the very same message can be sent again later), then past the first reminder
      const vote: VoteInput = { approverId: 'fiona', monthlyRate: 4000, currency: 'USD' };
      const signed = signAction(
        { id: actionKeys.currentKeyId, key: actionKeys.currentKey().toString('base64') },
        chainOf(ticketId),
        'approve',
        vote,
        await env.temporal.env.currentTimeMs(),
        randomBytes(16).toString('base64url'),
      );
      const answer = await client.workflow.getHandle(workflowId).executeUpdate(approveUpdate, { args: [signed] });
      t.is(answer.stillNeeded, 1);
      const voted = await orders.status(orderOf(ticketId));
      await env.temporal.env.sleep(49 * HOUR);
      const described: WorkflowExecutionDescription = await waitFor(
        async () => {
          const description = await latest(client, ticketId);
          return description.runId !== first.firstExecutionRunId ? description : undefined;
        },
        20_000,
        'a new run',
      );

      const resumed = await orders.status(orderOf(ticketId));
      t.is(resumed.state, 'AWAITING_APPROVAL');
      t.deepEqual(resumed.timeline, voted.timeline, 'the same timeline, not begun again');
      t.deepEqual(resumed.approval?.votes, voted.approval?.votes, 'the votes');
      t.is(resumed.approval?.deadline, waiting.approval?.deadline, 'the deadline');
      t.is(resumed.approval?.remindersSent, 1, 'the reminder sent before it continued');
      t.deepEqual(resumed.quote, waiting.quote);

      // The search attributes carried over to the new run.
      const attributes = described.typedSearchAttributes;
      t.is(attributes.get(ORDER_STATUS), 'AWAITING_APPROVAL');
      t.is(attributes.get(TICKET_ID), ticketId);
      t.is(attributes.get(ENVIRONMENT), 'staging');
      t.is(attributes.get(MONTHLY_RATE), 4000);

      // The nonces: the same signed vote is a replay in the new run too.
      const replayed = await t.throwsAsync(
        client.workflow.getHandle(workflowId).executeUpdate(approveUpdate, { args: [signed] }),
        { instanceOf: WorkflowUpdateFailedError },
      );
      t.is(replayed?.cause?.message, 'the action was already received once (a replayed message)');

      // The round goes on in the new run: the second approver decides it, and the order is bought.
      const decided = await orders.approve(orderOf(ticketId), {
        approverId: 'dave',
        monthlyRate: 4000,
        currency: 'USD',
      });
      t.is(decided.state, 'APPROVED');
      const outcome = await client.workflow.getHandle<typeof orderWorkflow>(workflowId).result();
      t.is(outcome.state, 'BOUGHT');
      t.is(fake.callsOf('buyOrder').length, 1);
      t.is(fake.callsOf('lookUpLocation').length, 1, 'not looked up again in the new run');
      t.is(
        fake.callsOf('beginRun').filter((call) => call.input.carried === undefined).length,
        1,
        'the governing policy is carried, not read again',
      );
      t.true(
        fake
          .callsOf('beginRun')
          .slice(1)
          .every((call) => call.input.carried?.seal !== undefined && call.input.continuedFromRunId !== undefined),
        'each new run asks to be admitted with the sealed progress and the run it continued from',
      );

      const runs = await runsOf(client, workflowId, first.firstExecutionRunId);
      t.true(runs.length >= 2);
      const carried = inputOf(runs[1].history).carried!;
      t.true(carried.acceptedNonces.includes(signed.signature.nonce), 'the nonce is in the carried progress');
      t.is(carried.round?.deadline, Date.parse(waiting.approval!.deadline));
      t.deepEqual(
        carried.round?.votes.map((v) => v.approverId),
        ['fiona'],
      );

      // Records are kept per order: no sequence number is used twice. A journal write carries its entries only (the
      // activity knows its run from its context), in either run.
      t.true(fake.callsOf('recordJournal').every((call) => Object.keys(call.input).join() === 'entries'));
      const { seqs, unique } = journalSeqs(fake);
      t.true(unique, `sequence numbers ${seqs.join(',')}`);
      const notes = entriesOf(fake.written(), 'note').map((note) => note.message);
      t.true(
        notes.some((message) =>
          /^continuing as a new run after \d+ history events; the order waits on, unchanged$/.test(message),
        ),
      );

      await replays(t, workflowId, runs);
    });
  },
);

test.serial(
  'an order in BUY_UNCERTAIN continues as new, keeps its attempt and reminder count, and is settled by ops in the new run',
  async (t) => {
    const fake = fakeActivities({ buyOrder: [uncertain()] }, { validateOrder: quoteOf(800) }); // auto-approved
    await env.withOrderWorker(fake, actionKeys, async (base) => {
      const { client } = env.temporal;
      const orders = new OrderClient({
        client,
        taskQueue: base,
        actionKeys,
        tickets,
        clock: () => env.temporal.env.currentTimeMs(),
      });
      const ticketId = 'CAN-UNCERTAIN';
      const workflowId = workflowOf(ticketId);
      const first = await startOrder(client, base, ticketId, {
        continueAsNewAfterEvents: 30,
        buyUncertainReminderMs: HOUR,
      });
      const parked = await waitFor(async () => {
        const status = await orders.status(orderOf(ticketId)).catch(() => undefined);
        return status?.state === 'BUY_UNCERTAIN' ? status : undefined;
      });
      let hours = 0;
      await waitFor(
        async () => {
          if ((await latest(client, ticketId)).runId !== first.firstExecutionRunId) return true;
          if (hours >= 24) throw new Error('no new run after 24 reminders');
          await env.temporal.env.sleep(HOUR);
          hours++;
          return undefined;
        },
        60_000,
        'a new run',
      );

      const resumed = await orders.status(orderOf(ticketId));
      t.is(resumed.state, 'BUY_UNCERTAIN');
      t.deepEqual(resumed.timeline, parked.timeline);
      t.is(resumed.buyAttempts, 1);
      const described = await latest(client, ticketId);
      t.is(described.typedSearchAttributes.get(ORDER_STATUS), 'BUY_UNCERTAIN');

      const runs = await runsOf(client, workflowId, first.firstExecutionRunId);
      const carried = inputOf(runs[1].history).carried!;
      t.true(carried.buyRemindersSent >= 1);
      // One more reminder in the new run: numbered on from the carried count.
      await env.temporal.env.sleep(HOUR);
      await waitFor(
        () =>
          Promise.resolve(
            entriesOf(fake.written(), 'note').some((note) =>
              note.message.startsWith(`reminder ${carried.buyRemindersSent + 1}:`),
            ) || undefined,
          ),
        20_000,
        'the next reminder',
      );

      t.is(
        await orders.resolveBuy(orderOf(ticketId), {
          actor: 'olga',
          outcome: 'created',
          technicalServiceUid: UID,
          note: 'in the portal',
        }),
        'BOUGHT',
      );
      const outcome = await client.workflow.getHandle<typeof orderWorkflow>(workflowId).result();
      t.is(outcome.state, 'BOUGHT');
      t.is(outcome.product?.technicalServiceUid, UID);
      t.is(fake.callsOf('buyOrder').length, 1, 'never bought again');
      const { seqs, unique } = journalSeqs(fake);
      t.true(unique, `sequence numbers ${seqs.join(',')}`);

      await replays(t, workflowId, await runsOf(client, workflowId, first.firstExecutionRunId));
    });
  },
);

// continueAsNewIfDue only continues when the outboxes are idle, and is checked only at the top of the wait loop, straight
// after a reminder has pushed its notification to the ticket system: with a callback URL the outbox is never idle at
// the check, so an uncertain buy (which waits for ops without a deadline) never continues as new and its history
// grows by every reminder. The same holds for approval rounds (reminders notify too), which continue only on a vote.
test.serial('an order in BUY_UNCERTAIN with a ticket-system callback still continues as new', async (t) => {
  const fake = fakeActivities({ buyOrder: [uncertain()] }, { validateOrder: quoteOf(800) });
  await env.withOrderWorker(fake, actionKeys, async (base) => {
    const { client } = env.temporal;
    const orders = new OrderClient({
      client,
      taskQueue: base,
      actionKeys,
      tickets,
      clock: () => env.temporal.env.currentTimeMs(),
    });
    const ticketId = 'CAN-CALLBACK';
    const first = await startOrder(
      client,
      base,
      ticketId,
      { continueAsNewAfterEvents: 30, buyUncertainReminderMs: HOUR },
      { callbackUrl: 'https://tickets.example.com/hooks/mve' },
    );
    await waitFor(async () =>
      (await orders.status(orderOf(ticketId)).catch(() => undefined))?.state === 'BUY_UNCERTAIN' ? true : undefined,
    );
    let description = await latest(client, ticketId);
    for (let hour = 0; hour < 12 && description.runId === first.firstExecutionRunId; hour++) {
      await env.temporal.env.sleep(HOUR);
      description = await latest(client, ticketId);
    }
    const reminders = entriesOf(fake.written(), 'note').filter((note) => note.message.startsWith('reminder')).length;
    try {
      t.not(
        description.runId,
        first.firstExecutionRunId,
        `still the first run after ${reminders} reminders, ${description.historyLength} history events (limit 30)`,
      );
    } finally {
      await client.workflow.getHandle(workflowOf(ticketId)).terminate('test done');
    }
  });
});

/** The order's journal write before it continues as new, held until the test releases it. */
function journalHeldBeforeContinuing() {
  const write = held<void>();
  const fake = fakeActivities(
    {},
    {
      validateOrder: quoteOf(4000),
      recordJournal: async (input) => {
        if (isContinuingWrite({ input })) await write.answer();
      },
    },
  );
  return { write, fake };
}

function isContinuingWrite(call: { input: { entries: JournalEntry[] } }): boolean {
  return call.input.entries.some(
    (entry) => entry.type === 'note' && entry.message.startsWith('continuing as a new run'),
  );
}

// A cancel accepted while the journal write before continuing is in flight must be acted on in the old run: the
// order looks at its inbox again after the write, and does not continue as new with the cancel unhandled.
test.serial('a cancel accepted while the order writes its journal to continue as new is not lost', async (t) => {
  t.timeout(120_000);
  const { write, fake } = journalHeldBeforeContinuing();
  await env.withOrderWorker(fake, actionKeys, async (base) => {
    const { client } = env.temporal;
    const orders = new OrderClient({
      client,
      taskQueue: base,
      actionKeys,
      tickets,
      clock: () => env.temporal.env.currentTimeMs(),
    });
    const ticketId = 'CAN-CANCEL';
    const workflowId = workflowOf(ticketId);
    const first = await startOrder(client, base, ticketId, { continueAsNewAfterEvents: 30 });
    try {
      await waitFor(async () =>
        (await orders.status(orderOf(ticketId)).catch(() => undefined))?.state === 'AWAITING_APPROVAL'
          ? true
          : undefined,
      );
      await orders.approve(orderOf(ticketId), { approverId: 'fiona', monthlyRate: 4000, currency: 'USD' });
      const sleeping = env.temporal.env.sleep(49 * HOUR); // the first reminder: the order continues as new there
      await waitFor(
        () => Promise.resolve(fake.callsOf('recordJournal').some(isContinuingWrite) ? true : undefined),
        30_000,
        'the journal write before continuing',
      );
      const cancel = signAction(
        { id: actionKeys.currentKeyId, key: actionKeys.currentKey().toString('base64') },
        chainOf(ticketId),
        'cancel',
        { actor: 'alice', reason: 'not needed any more' },
        await env.temporal.env.currentTimeMs(),
        randomBytes(16).toString('base64url'),
      );
      await client.workflow
        .getHandle(workflowId)
        .startUpdate(cancelUpdate, { args: [cancel], waitForStage: 'ACCEPTED' });
      write.release();
      await sleeping;
      const ended = await waitFor(
        async () => {
          const description = await latest(client, ticketId);
          const status = await orders.status(orderOf(ticketId)).catch(() => undefined);
          return description.runId !== first.firstExecutionRunId || status?.state === 'CANCELLED' ? status : undefined;
        },
        30_000,
        'the cancel acted on, or a new run',
      );
      const runs = await runsOf(client, workflowId, first.firstExecutionRunId);
      const carried = runs.length > 1 ? inputOf(runs[1].history).carried : undefined;
      t.is(
        ended?.state,
        'CANCELLED',
        `the accepted cancel is acted on (runs: ${runs.length}; the new run carries the cancel's nonce: ${carried?.acceptedNonces.includes(cancel.signature.nonce)})`,
      );
    } finally {
      write.release();
      await client.workflow
        .getHandle(workflowId)
        .terminate('test done')
        .catch(() => undefined);
    }
  });
});

// The same window for a vote: its journal entry is pushed after the batch being written was taken, so the order
// writes it in the old run before continuing, and the vote reaches the records.
test.serial('a vote accepted while the order writes its journal to continue as new is recorded', async (t) => {
  t.timeout(120_000);
  const { write, fake } = journalHeldBeforeContinuing();
  await env.withOrderWorker(fake, actionKeys, async (base) => {
    const { client } = env.temporal;
    const orders = new OrderClient({
      client,
      taskQueue: base,
      actionKeys,
      tickets,
      clock: () => env.temporal.env.currentTimeMs(),
    });
    const ticketId = 'CAN-VOTE';
    const workflowId = workflowOf(ticketId);
    await startOrder(client, base, ticketId, { continueAsNewAfterEvents: 30 });
    try {
      await waitFor(async () =>
        (await orders.status(orderOf(ticketId)).catch(() => undefined))?.state === 'AWAITING_APPROVAL'
          ? true
          : undefined,
      );
      await orders.approve(orderOf(ticketId), { approverId: 'fiona', monthlyRate: 4000, currency: 'USD' });
      const sleeping = env.temporal.env.sleep(49 * HOUR);
      await waitFor(
        () => Promise.resolve(fake.callsOf('recordJournal').some(isContinuingWrite) ? true : undefined),
        30_000,
        'the journal write before continuing',
      );
      const vote = signAction(
        { id: actionKeys.currentKeyId, key: actionKeys.currentKey().toString('base64') },
        chainOf(ticketId),
        'approve',
        { approverId: 'dave', monthlyRate: 4000, currency: 'USD' },
        await env.temporal.env.currentTimeMs(),
        randomBytes(16).toString('base64url'),
      );
      await client.workflow
        .getHandle(workflowId)
        .startUpdate(approveUpdate, { args: [vote], waitForStage: 'ACCEPTED' });
      write.release();
      await sleeping;
      const outcome = await client.workflow.getHandle<typeof orderWorkflow>(workflowId).result();
      t.is(outcome.state, 'BOUGHT', 'the vote counted');
      const votes = entriesOf(fake.written(), 'vote').map((entry) => entry.approverId);
      t.deepEqual(votes, ['fiona', 'dave'], 'both votes are in the records');
    } finally {
      write.release();
      await client.workflow
        .getHandle(workflowId)
        .terminate('test done')
        .catch(() => undefined);
    }
  });
});
