/** `npm run features`: finding the suite and its TypeScript features, and the table it prints. */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { Connection } from '@temporalio/client';
import { dynamicConfigFlags, DYNAMIC_CONFIG_FILE } from '../../scripts/features/dynamic-config.js';
import { formatSideBySide, formatTable } from '../../scripts/features/report.js';
import { chosenServers, featureServer } from '../../scripts/features/servers.js';
import { listFeatures, requireSuite, SuiteNotFound } from '../../scripts/features/suite.js';

function fakeSuite(features: Record<string, object | undefined>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'features-suite-'));
  mkdirSync(path.join(root, 'harness/ts'), { recursive: true });
  for (const file of ['harness.ts', 'main.ts']) writeFileSync(path.join(root, 'harness/ts', file), '');
  for (const [dir, config] of Object.entries(features)) {
    mkdirSync(path.join(root, 'features', dir), { recursive: true });
    writeFileSync(path.join(root, 'features', dir, 'feature.ts'), '');
    if (config) writeFileSync(path.join(root, 'features', dir, 'config.json'), JSON.stringify(config));
  }
  mkdirSync(path.join(root, 'features/snippets/only-a-snippet'), { recursive: true });
  return root;
}

test('without a suite, the runner says how to get one', (t) => {
  const error = t.throws(() => requireSuite(undefined), { instanceOf: SuiteNotFound });
  t.regex(error!.message, /git clone https:\/\/github\.com\/temporalio\/features/);
  t.regex(error!.message, /--suite \/path\/to\/features|FEATURES_DIR/);
  t.throws(() => requireSuite(os.tmpdir()), {
    instanceOf: SuiteNotFound,
    message: /is not a temporalio\/features checkout/,
  });
});

test("every folder with a feature.ts is a feature; those needing the Go runner's proxy or run variants are skipped with the reason", (t) => {
  const root = fakeSuite({
    'update/basic': undefined,
    'activity/retry_on_error': { go: { minVersion: 'v1.11.0' } },
    'client/http_proxy': { expectUnauthedProxyCount: 1 },
    'worker_shutdown/poll_complete_on_shutdown': { runVariants: [{ name: 'enabled' }, { name: 'disabled' }] },
  });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  t.is(requireSuite(root), root);
  const features = listFeatures(root);
  t.deepEqual(
    features.map((f) => f.dir),
    ['activity/retry_on_error', 'client/http_proxy', 'update/basic', 'worker_shutdown/poll_complete_on_shutdown'],
  );
  t.deepEqual(
    features.filter((f) => !f.skip).map((f) => f.dir),
    ['activity/retry_on_error', 'update/basic'],
  );
  t.regex(features.find((f) => f.dir === 'client/http_proxy')!.skip!, /HTTP CONNECT proxy/);
  t.regex(features.find((f) => f.dir.startsWith('worker_shutdown'))!.skip!, /variants \(enabled, disabled\)/);
  t.deepEqual(
    listFeatures(root, 'update/').map((f) => f.dir),
    ['update/basic'],
  );
});

test('the table lists each feature with its result and ends with "features: P/N pass", skipped ones not counted', (t) => {
  const table = formatTable(
    [
      { feature: 'update/basic', outcome: 'pass', durationMs: 2100 },
      {
        feature: 'schedule/basic',
        outcome: 'fail',
        durationMs: 900,
        error: 'ServiceError: Failed to create schedule',
        unimplemented: { CreateSchedule: 1 },
      },
      { feature: 'client/http_proxy', outcome: 'skip', durationMs: 0, error: 'out of scope: proxy' },
    ],
    'devserver',
  );
  const lines = table.split('\n');
  t.regex(lines[0]!, /^feature\s+result\s+duration\s+error$/);
  t.truthy(lines.find((l) => /^update\/basic\s+pass\s+2\.1 s$/.test(l)));
  t.truthy(lines.find((l) => /^schedule\/basic\s+fail\s+0\.9 s\s+ServiceError: Failed to create schedule$/.test(l)));
  t.true(lines.includes('  schedule/basic: unimplemented CreateSchedule'));
  t.is(lines.at(-2), 'skipped: 1');
  t.is(lines.at(-1), 'features: 1/2 pass');
});

test('on both servers, each feature shows both results, differences marked, failures explained, a summary per server', (t) => {
  const text = formatSideBySide({
    devserver: [
      {
        feature: 'schedule/basic',
        outcome: 'fail',
        durationMs: 900,
        error: 'ServiceError: boom',
        unimplemented: { CreateSchedule: 1 },
      },
      { feature: 'update/basic', outcome: 'pass', durationMs: 2100 },
      { feature: 'client/http_proxy', outcome: 'skip', durationMs: 0, error: 'out of scope: proxy' },
    ],
    real: [
      { feature: 'schedule/basic', outcome: 'pass', durationMs: 1500 },
      { feature: 'update/basic', outcome: 'pass', durationMs: 2600 },
      { feature: 'client/http_proxy', outcome: 'skip', durationMs: 0, error: 'out of scope: proxy' },
    ],
  });
  const lines = text.split('\n');
  t.regex(lines[0]!, /^feature\s+devserver\s+real server$/);
  t.truthy(lines.find((l) => /^schedule\/basic\s+fail 0\.9 s\s+pass 1\.5 s\s+differs$/.test(l)));
  t.truthy(lines.find((l) => /^update\/basic\s+pass 2\.1 s\s+pass 2\.6 s$/.test(l)));
  t.truthy(lines.find((l) => /^client\/http_proxy\s+skip\s+skip$/.test(l)));
  t.deepEqual(lines.slice(lines.indexOf('failed:'), lines.indexOf('failed:') + 4), [
    'failed:',
    '  schedule/basic',
    '    devserver: ServiceError: boom',
    '      (server: unimplemented CreateSchedule)',
  ]);
  t.deepEqual(lines.slice(-2), [
    'devserver:   1 passed, 1 failed, 1 skipped',
    'real server: 2 passed, 0 failed, 1 skipped',
  ]);
});

test('--server takes devserver, real or both, and names the choices otherwise', (t) => {
  t.deepEqual(chosenServers('both'), ['devserver', 'real']);
  t.deepEqual(chosenServers('real'), ['real']);
  t.throws(() => chosenServers('cloud'), { message: '--server must be one of devserver, real, both, not cloud' });
});

function suiteWithDynamicConfig(yaml: string): string {
  const root = fakeSuite({});
  mkdirSync(path.join(root, path.dirname(DYNAMIC_CONFIG_FILE)), { recursive: true });
  writeFileSync(path.join(root, DYNAMIC_CONFIG_FILE), yaml);
  return root;
}

test("the real server gets the dynamic config of the suite's Go runner as start-dev flags", (t) => {
  const root = suiteWithDynamicConfig(
    [
      'frontend.enableUpdateWorkflowExecution:',
      '  - value: true',
      '    constraints: {}',
      'limit.blobSize.warn:',
      '  - value: 1024',
      '    constraints: {}    ',
      '',
    ].join('\n'),
  );
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  t.deepEqual(dynamicConfigFlags(root), [
    '--dynamic-config-value',
    'frontend.enableUpdateWorkflowExecution=true',
    '--dynamic-config-value',
    'limit.blobSize.warn=1024',
  ]);
  const bad = suiteWithDynamicConfig('system.enableDeployments:\n  value: true\n');
  t.teardown(() => rmSync(bad, { recursive: true, force: true }));
  t.throws(() => dynamicConfigFlags(bad), {
    message: /docker\.yaml:2: expected "key:" or " {2}- value: …", not " {2}value: true"/,
  });
  t.deepEqual(dynamicConfigFlags(fakeSuite({})), []);
});

test("a feature's real server: start-dev with the namespace and the dynamic config given, gone once closed", async (t) => {
  t.timeout(90_000);
  const namespace = `ns-${process.pid}`; // within the limit below
  // a limit whose effect a client sees: workflow ids of at most 20 characters
  const server = await featureServer('real', ['--dynamic-config-value', 'limit.maxIDLength=20'])(namespace);
  const connection = await Connection.connect({ address: server.address });
  try {
    const { namespaceInfo } = await connection.workflowService.describeNamespace({ namespace });
    t.is(namespaceInfo?.name, namespace);
    await t.throwsAsync(
      connection.workflowService.startWorkflowExecution({
        namespace,
        workflowId: 'a-workflow-id-longer-than-twenty',
        workflowType: { name: 'anything' },
        taskQueue: { name: 'anywhere' },
        requestId: randomUUID(),
      }),
      { message: /WorkflowId exceeds maximum allowed length \(32\/20\)/ },
    );
  } finally {
    await connection.close();
    await server.close();
  }
  await t.throwsAsync(Connection.connect({ address: server.address, connectTimeout: 2_000 }));
});
