/**
 * `npm run features`: the public temporalio/features suite's TypeScript features, one by one, each against a
 * fresh devserver, with this project's SDK (see packages/devserver/README.md, "The features suite").
 *
 *   npm run features -- --suite /path/to/features [--filter update/] [--json] [--timeout 90] [--verbose]
 *
 * The suite comes from --suite or FEATURES_DIR. It prints a table (feature, pass/fail/skip, duration, first
 * line of the error) and `features: P/N pass`, or with --json the same as JSON; it exits 1 when a feature failed.
 */
import { parseArgs } from 'node:util';
import { prepareSuite } from './features/prepare.js';
import { formatJson, formatTable } from './features/report.js';
import { runFeature } from './features/run-feature.js';
import type { FeatureResult } from './features/run-feature.js';
import { SuiteNotFound, listFeatures, requireSuite } from './features/suite.js';

const { values } = parseArgs({
  options: {
    suite: { type: 'string' },
    filter: { type: 'string' },
    json: { type: 'boolean', default: false },
    timeout: { type: 'string', default: '90' },
    verbose: { type: 'boolean', default: false },
  },
});

// progress goes to stderr so that --json leaves stdout to the JSON
const progress = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<number> {
  const suite = requireSuite(values.suite ?? process.env.FEATURES_DIR);
  const timeoutMs = Number(values.timeout) * 1000;
  if (!(timeoutMs > 0)) throw new Error(`--timeout must be a positive number of seconds, not ${values.timeout}`);
  const features = listFeatures(suite, values.filter);
  if (!features.length) throw new Error(`no TypeScript feature in ${suite} matches ${values.filter}`);
  const prepared = await prepareSuite(suite, progress);
  if (prepared.typeErrors.length)
    progress(
      `(${prepared.typeErrors.length} type errors while compiling the suite; the output is emitted and run regardless)${values.verbose ? `\n${prepared.typeErrors.join('\n')}` : ''}`,
    );

  const results: FeatureResult[] = [];
  for (const feature of features) {
    const result = await runFeature(prepared, feature, timeoutMs);
    results.push(result);
    progress(
      `${result.outcome.padEnd(4)} ${feature.dir}${result.outcome === 'skip' ? '' : ` (${(result.durationMs / 1000).toFixed(1)} s)`}`,
    );
    if (values.verbose && result.outcome === 'fail')
      progress(
        `${result.output}\n${JSON.stringify({ unimplemented: result.unimplemented, serverWarnings: result.serverWarnings })}`,
      );
  }
  process.stdout.write(`${values.json ? formatJson(results) : formatTable(results)}\n`);
  return results.some((r) => r.outcome === 'fail') ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    progress(
      error instanceof SuiteNotFound
        ? error.message
        : error instanceof Error
          ? (error.stack ?? error.message)
          : String(error),
    );
    process.exit(2);
  },
);
