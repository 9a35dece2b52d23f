/**
 * `npm run features`: the public temporalio/features suite's TypeScript features, one by one, each against a
 * fresh server — the devserver, the real Temporal server (`temporal server start-dev`) or both — with this
 * project's SDK (see docs/devserver.md, "The features suite on both servers").
 *
 *   npm run features -- --suite /path/to/features [--server devserver|real|both] [--filter update/] [--json]
 *                       [--timeout 90] [--verbose]
 *
 * The suite comes from --suite or FEATURES_DIR. On one server it prints a table (feature, pass/fail/skip, duration,
 * first line of the error) and `features: P/N pass`; on both, each feature's result on each server side by side and
 * each server's passed, failed and skipped; with --json the same as JSON. It exits 1 when a feature failed.
 */
import { parseArgs } from 'node:util';
import { dynamicConfigFlags } from './features/dynamic-config.js';
import { prepareSuite } from './features/prepare.js';
import { formatJson, formatSideBySide, formatTable, type ResultsByServer } from './features/report.js';
import { runFeature } from './features/run-feature.js';
import { chosenServers, featureServer, SERVER_LABELS } from './features/servers.js';
import { SuiteNotFound, listFeatures, requireSuite } from './features/suite.js';

const { values } = parseArgs({
  options: {
    suite: { type: 'string' },
    server: { type: 'string', default: 'devserver' },
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
  const servers = chosenServers(values.server);
  const dynamicConfig = dynamicConfigFlags(suite);
  const starters = servers.map((server) => featureServer(server, dynamicConfig));
  const timeoutMs = Number(values.timeout) * 1000;
  if (!(timeoutMs > 0)) throw new Error(`--timeout must be a positive number of seconds, not ${values.timeout}`);
  const features = listFeatures(suite, values.filter);
  if (!features.length) throw new Error(`no TypeScript feature in ${suite} matches ${values.filter}`);
  const prepared = await prepareSuite(suite, progress);
  if (prepared.typeErrors.length)
    progress(
      `(${prepared.typeErrors.length} type errors while compiling the suite; the output is emitted and run regardless)${values.verbose ? `\n${prepared.typeErrors.join('\n')}` : ''}`,
    );

  const byServer: ResultsByServer = Object.fromEntries(servers.map((server) => [server, []]));
  // feature by feature, each on every server in turn: both see the machine's load alike
  for (const feature of features) {
    if (feature.skip) progress(`skip ${feature.dir}`);
    for (const [i, server] of servers.entries()) {
      const result = await runFeature(prepared, feature, timeoutMs, starters[i]!);
      byServer[server]!.push(result);
      if (result.outcome === 'skip') continue;
      const on = servers.length > 1 ? ` on the ${SERVER_LABELS[server]}` : '';
      progress(`${result.outcome.padEnd(4)} ${feature.dir}${on} (${(result.durationMs / 1000).toFixed(1)} s)`);
      if (values.verbose && result.outcome === 'fail')
        progress(
          `${result.output}\n${JSON.stringify({ unimplemented: result.unimplemented, serverWarnings: result.serverWarnings })}`,
        );
    }
  }
  process.stdout.write(
    `${values.json ? formatJson(byServer) : servers.length > 1 ? formatSideBySide(byServer) : formatTable(byServer[servers[0]!]!, servers[0]!)}\n`,
  );
  return Object.values(byServer).some((results) => results.some((r) => r.outcome === 'fail')) ? 1 : 0;
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
