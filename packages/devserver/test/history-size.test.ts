/**
 * The history's size, as the real server counts it (the stored bytes of its events), wherever it reports it:
 * WorkflowTaskStarted (the SDK's `workflowInfo().historySize`), DescribeWorkflowExecution and visibility; and the
 * continue-as-new suggestion a workflow task carries once the history reaches the count or size threshold.
 */
import test from 'ava';
import type { WorkflowHandle } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { DEFAULT_LIMITS } from '../src/engine/limits.js';
import { historyOf } from './limits-support.js';
import type { HistoryEvent } from './limits-support.js';
import { startRulesEnv } from './rules-support.js';
import type { RulesEnv } from './rules-support.js';
import { uniqueId } from './support.js';
import type { HistoryInfo } from './fixtures/server-rules-workflows.js';

const { HistoryEvent: HistoryEventType } = protoRoot.temporal.api.history.v1;
const { SuggestContinueAsNewReason } = protoRoot.temporal.api.enums.v1;

/** An event's bytes in a stored batch: field tag, length prefix, the encoded event. */
function storedSize(event: HistoryEvent): number {
  const bytes = HistoryEventType.encode(event).finish().length;
  let lengthBytes = 1;
  while (bytes >= 128 ** lengthBytes) lengthBytes++;
  return 1 + lengthBytes + bytes;
}
const sizeOf = (events: HistoryEvent[]) => events.reduce((sum, event) => sum + storedSize(event), 0);
const startedEvents = (events: HistoryEvent[]) => events.filter((e) => e.workflowTaskStartedEventAttributes);

/** Sends ticks one at a time, each seen by the workflow (its own workflow task) before the next, until it has `count` or returns. */
async function tick(handle: WorkflowHandle, count: number, payload = 'tick'): Promise<void> {
  for (let sent = 0; sent < count; sent++) {
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING') return;
    await handle.signal('tick', payload);
    while ((await handle.describe()).status.name === 'RUNNING' && (await handle.query<number>('ticks')) <= sent)
      await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let env: RulesEnv;
let sizeEnv: RulesEnv;
test.before(async () => {
  env = await startRulesEnv({ historyCountSuggestContinueAsNew: 20 });
  sizeEnv = await startRulesEnv({ historySizeSuggestContinueAsNew: 4000 });
});
test.after.always(async () => {
  await env?.close();
  await sizeEnv?.close();
});

test('the suggestion thresholds default to the real server’s: 4,096 events, 4 MiB', (t) => {
  t.is(DEFAULT_LIMITS.historyCountSuggestContinueAsNew, 4096);
  t.is(DEFAULT_LIMITS.historySizeSuggestContinueAsNew, 4 * 1024 * 1024);
});

test('the history size is the stored size of its events: in each workflow task, in describe and in listings', async (t) => {
  const taskQueue = uniqueId('size');
  const workflowId = uniqueId('size');
  const seen = await env.withWorker(taskQueue, async () => {
    const handle = await env.client.workflow.start('historyInfoWorkflow', { taskQueue, workflowId });
    await tick(handle, 3);
    await handle.signal('finish');
    return (await handle.result()) as HistoryInfo[];
  });
  const events = await historyOf(env, workflowId);
  for (const started of startedEvents(events)) {
    const before = events.filter((e) => Number(e.eventId) < Number(started.eventId));
    t.is(
      Number(started.workflowTaskStartedEventAttributes!.historySizeBytes),
      sizeOf(before),
      `WorkflowTaskStarted ${started.eventId}`,
    );
  }
  t.is(seen.length, 3);
  const reported = startedEvents(events).map((e) => Number(e.workflowTaskStartedEventAttributes!.historySizeBytes));
  for (const info of seen)
    t.true(reported.includes(info.historySize), `${info.historySize} is a WorkflowTaskStarted's size`);
  t.true(seen[0]!.historySize > 0 && seen[2]!.historySize > seen[0]!.historySize);

  const described = await env.client.workflow.getHandle(workflowId).describe();
  t.is(described.historySize, sizeOf(events));
  const listed = [];
  for await (const info of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) listed.push(info);
  t.is(listed[0]?.historySize, sizeOf(events));
  await env.assertReplays(t, [workflowId]);
});

test('a workflow task suggests continuing as new from the history count threshold on', async (t) => {
  const taskQueue = uniqueId('count');
  const workflowId = uniqueId('count');
  const seen = await env.withWorker(taskQueue, async () => {
    const handle = await env.client.workflow.start('historyInfoWorkflow', { taskQueue, workflowId });
    await tick(handle, 20);
    return (await handle.result()) as HistoryInfo[];
  });
  t.true(seen.at(-1)!.continueAsNewSuggested, 'the workflow saw the suggestion');
  t.false(seen[0]!.continueAsNewSuggested);
  for (const started of startedEvents(await historyOf(env, workflowId))) {
    const attributes = started.workflowTaskStartedEventAttributes!;
    const reached = Number(started.eventId) >= 20;
    t.is(attributes.suggestContinueAsNew, reached, `WorkflowTaskStarted ${started.eventId}`);
    t.deepEqual(
      attributes.suggestContinueAsNewReasons,
      reached ? [SuggestContinueAsNewReason.SUGGEST_CONTINUE_AS_NEW_REASON_TOO_MANY_HISTORY_EVENTS] : [],
    );
  }
  await env.assertReplays(t, [workflowId]);
});

test('a workflow task suggests continuing as new from the history size threshold on', async (t) => {
  const taskQueue = uniqueId('bytes');
  const workflowId = uniqueId('bytes');
  const seen = await sizeEnv.withWorker(taskQueue, async () => {
    const handle = await sizeEnv.client.workflow.start('historyInfoWorkflow', { taskQueue, workflowId });
    await tick(handle, 20, 'x'.repeat(500));
    return (await handle.result()) as HistoryInfo[];
  });
  t.true(seen.at(-1)!.continueAsNewSuggested);
  t.true(seen.at(-1)!.historySize >= 4000);
  for (const started of startedEvents(await historyOf(sizeEnv, workflowId))) {
    const attributes = started.workflowTaskStartedEventAttributes!;
    const reached = Number(attributes.historySizeBytes) >= 4000;
    t.is(attributes.suggestContinueAsNew, reached, `WorkflowTaskStarted ${started.eventId}`);
    t.deepEqual(
      attributes.suggestContinueAsNewReasons,
      reached ? [SuggestContinueAsNewReason.SUGGEST_CONTINUE_AS_NEW_REASON_HISTORY_SIZE_TOO_LARGE] : [],
    );
  }
  await sizeEnv.assertReplays(t, [workflowId]);
});
