import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import protoRoot from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { encryptingDataConverter, Keyring } from '../../codec/index.js';
import { orderWorkflowBundle } from '../../worker/index.js';

// Histories recorded from the order workflow before the lean restructure (commit b88b9e3): open and closed
// runs of that code must replay on today's workflow, or orders waiting for approval at an upgrade would break.
const FIXTURES = new URL('./fixtures/histories-v1/', import.meta.url);

test('orders recorded before the lean restructure replay on the current workflow code', async (t) => {
  const codecKeys = (await readFile(new URL('codec-key.txt', FIXTURES), 'utf8')).trim();
  const files = (await readdir(FIXTURES)).filter((name) => name.endsWith('.json')).sort();
  t.true(files.length >= 7, 'the recorded scenarios are all there');
  const histories = await Promise.all(
    files.map(async (name) => {
      const recorded = JSON.parse(await readFile(new URL(name, FIXTURES), 'utf8')) as { workflowId: string; history: object };
      return { workflowId: recorded.workflowId, history: protoRoot.temporal.api.history.v1.History.fromObject(recorded.history) };
    }),
  );
  const failures: string[] = [];
  const results = Worker.runReplayHistories(
    {
      workflowBundle: await orderWorkflowBundle(Keyring.fromText('replay:' + Buffer.alloc(32, 7).toString('base64'), 'replay', 'action keys')),
      dataConverter: encryptingDataConverter(Keyring.fromText(codecKeys)),
    },
    histories,
  );
  let replayed = 0;
  for await (const result of results) {
    replayed++;
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  t.is(replayed, files.length);
  t.deepEqual(failures, []);
});
