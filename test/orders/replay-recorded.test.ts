import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import protoRoot from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { Keyring, workerDataConverter } from '../../codec/index.js';
import { orderWorkflowBundle } from '../../worker/index.js';

/**
 * Order histories recorded from the suites that drive orders (MVE_RECORD_HISTORIES, test/helpers/orders.ts), open and
 * closed, on Temporal's own servers: each must replay on today's code, or orders open at an upgrade would break. A
 * change to the workflow that replays differently goes behind a patch, and the histories recorded before it stay here
 * (docs/order-workflow.md, "Changing the workflow").
 */
const FIXTURES = new URL('./fixtures/histories/', import.meta.url);
/** How many scenarios were recorded: the folder must not lose any. */
const SCENARIOS = 79;
/** Each file is named after the server that recorded it: `temporal server start-dev` or the time-skipping server. */
const RECORDED_ON = /^(real|time-skipping)\.mve-order-.+\.json$/;

interface Recorded {
  workflowId: string;
  codecKeys: string;
  history: object;
}

const recordedFiles = async () => (await readdir(FIXTURES)).filter((name) => name.endsWith('.json')).sort();

test("every history was recorded on one of Temporal's own servers, and is named after it", async (t) => {
  t.deepEqual(
    (await recordedFiles()).filter((name) => !RECORDED_ON.test(name)),
    [],
  );
});

test('the recorded orders replay on the current workflow code', async (t) => {
  const files = await recordedFiles();
  t.true(files.length >= SCENARIOS, `the recorded scenarios are all there (${files.length})`);
  const recordings = await Promise.all(
    files.map(async (name) => JSON.parse(await readFile(new URL(name, FIXTURES), 'utf8')) as Recorded),
  );
  const workflowBundle = await orderWorkflowBundle(
    Keyring.fromText('replay:' + Buffer.alloc(32, 7).toString('base64'), 'replay', 'action keys'),
  );
  // Each engine that recorded had keys of its own: histories are replayed in groups that share them.
  const byKeys = new Map<string, Recorded[]>();
  for (const recording of recordings)
    byKeys.set(recording.codecKeys, [...(byKeys.get(recording.codecKeys) ?? []), recording]);
  const failures: string[] = [];
  let replayed = 0;
  for (const [codecKeys, group] of byKeys) {
    const histories = group.map((recording) => ({
      workflowId: recording.workflowId,
      history: protoRoot.temporal.api.history.v1.History.fromObject(recording.history),
    }));
    for await (const result of Worker.runReplayHistories(
      { workflowBundle, dataConverter: workerDataConverter(Keyring.fromText(codecKeys)) },
      histories,
    )) {
      replayed++;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
  }
  t.is(replayed, files.length);
  t.deepEqual(failures, []);
});
