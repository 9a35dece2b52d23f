import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import protoRoot from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { encryptingDataConverter, Keyring } from '../../codec/index.js';
import { orderWorkflowBundle } from '../../worker/index.js';

// Histories recorded from earlier versions of the order workflow, open and closed: each must replay on today's code,
// or orders open at an upgrade would break (docs/order-workflow.md, "Version cut-over").
const RECORDINGS = [
  { folder: 'histories-v1', recorded: 'before the lean restructure (commit b88b9e3)', scenarios: 7 },
  { folder: 'histories-lean', recorded: 'before the buy wrote its own journal (commit f0d1685)', scenarios: 10 },
  { folder: 'histories-buy-ahead', recorded: 'before the reads before the gate were one (commit 837b70b)', scenarios: 16 },
  { folder: 'histories-one-read', recorded: 'before the buy ran in the workflow task (commit d597d74)', scenarios: 26 },
];

for (const { folder, recorded, scenarios } of RECORDINGS) {
  test(`orders recorded ${recorded} replay on the current workflow code`, async (t) => {
    const fixtures = new URL(`./fixtures/${folder}/`, import.meta.url);
    const codecKeys = (await readFile(new URL('codec-key.txt', fixtures), 'utf8')).trim();
    const files = (await readdir(fixtures)).filter((name) => name.endsWith('.json')).sort();
    t.true(files.length >= scenarios, 'the recorded scenarios are all there');
    const histories = await Promise.all(
      files.map(async (name) => {
        const history = JSON.parse(await readFile(new URL(name, fixtures), 'utf8')) as { workflowId: string; history: object };
        return { workflowId: history.workflowId, history: protoRoot.temporal.api.history.v1.History.fromObject(history.history) };
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
}
