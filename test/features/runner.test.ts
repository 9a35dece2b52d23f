/** `npm run features`: finding the suite and its TypeScript features, and the table it prints. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { formatTable } from '../../scripts/features/report.js';
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
  const table = formatTable([
    { feature: 'update/basic', outcome: 'pass', durationMs: 2100 },
    {
      feature: 'schedule/basic',
      outcome: 'fail',
      durationMs: 900,
      error: 'ServiceError: Failed to create schedule',
      unimplemented: { CreateSchedule: 1 },
    },
    { feature: 'client/http_proxy', outcome: 'skip', durationMs: 0, error: 'out of scope: proxy' },
  ]);
  const lines = table.split('\n');
  t.regex(lines[0]!, /^feature\s+result\s+duration\s+error$/);
  t.truthy(lines.find((l) => /^update\/basic\s+pass\s+2\.1 s$/.test(l)));
  t.truthy(lines.find((l) => /^schedule\/basic\s+fail\s+0\.9 s\s+ServiceError: Failed to create schedule$/.test(l)));
  t.true(lines.includes('  schedule/basic: unimplemented CreateSchedule'));
  t.is(lines.at(-2), 'skipped: 1');
  t.is(lines.at(-1), 'features: 1/2 pass');
});
