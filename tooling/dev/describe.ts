import { relative } from 'node:path';
import { redactDatabaseUrl } from '../../infra/db/index.js';
import type { EarlierOrders } from './earlier-orders.js';
import { LAST_EMBEDDED_COMMIT } from './retired-server.js';
import { devStatePath } from '../../client/cli/dev-state.js';
import type { DevReport } from './types.js';

/** The start-up summary: where each part listens, what was reused, and how to try it. */
export function describeDev(report: DevReport): string {
  const { state, embedded } = report;
  const show = (path: string) => {
    const local = relative(process.cwd(), path);
    return local === '' ? '.' : local.startsWith('..') ? path : local;
  };
  const lines = ['mve-orders dev', ...notices(report)];
  const earlier = report.earlierOrders;
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(14)}${value}`);
  row('data folder', show(state.dataDir));
  row(
    'PostgreSQL',
    `${redactDatabaseUrl(state.databaseUrl)}${embedded.postgres ? ` (embedded; data in ${show(report.postgresDataDir ?? `${state.dataDir}/postgres`)})` : ' (DATABASE_URL)'}`,
  );
  const server = report.temporalServer;
  row('Temporal', `${state.temporal.address} (${describeTemporal(server, show)})`);
  if (server.kind === 'cluster')
    for (const process of server.processes)
      row(
        '',
        `${process.name.padEnd(11)} pid ${String(process.pid).padEnd(8)} gRPC ${process.grpc.padEnd(16)} ` +
          `metrics ${process.metricsUrl}  log ${show(process.logFile)}`,
      );
  if (server.kind !== 'external')
    row(
      'Web UI',
      `${server.uiUrl}  (payloads decoded once this browser is signed in to the console as ops, e.g. olga; docs/running.md)`,
    );
  if (earlier) row('earlier state', describeEarlier(earlier));
  row('namespace', state.temporal.namespace);
  row('task queue', report.taskQueue);
  row(
    'API',
    `${state.api.baseUrl} (${state.api.environment}${embedded.simulator ? ', simulator' : ', MVE_API_BASE_URL'})`,
  );
  if (state.api.simulatorUrl) row('simulator', `${state.api.simulatorUrl}/_sim/state (call counts, products, faults)`);
  if (state.kindMapFile) row('kind map', `${show(state.kindMapFile)} (MVE_KIND_MAP)`);
  row(
    'codec key',
    report.codecKeyFromEnvironment
      ? `${report.codecKeyId} (MVE_CODEC_KEYS)`
      : `${report.codecKeyId} (${show(state.dataDir)}/codec-key.json)`,
  );
  row(
    'callbacks',
    report.callbackSecretFromEnvironment
      ? 'signed with MVE_CALLBACK_SECRET'
      : `signed with the secret in ${show(state.dataDir)}/callback-secret`,
  );
  row(
    'approvers',
    report.seededApprovers.length > 0
      ? `seeded ${report.seededApprovers.map((a) => `${a.id} (${a.roles.join(',') || 'no roles'})`).join(', ')}`
      : 'kept as they are (`mve-orders approvers list`)',
  );
  row('HTTP API', `${state.http.url}  (OpenAPI: ${state.http.url}/openapi.json)`);
  row('console', `${state.http.url}/  (sign in as any seeded user with one click)`);
  row(
    'users',
    `${report.users.map((user) => `${user.id} (${user.roles.join(',')})`).join(', ')}: tokens in ${show(devStatePath(state.dataDir))}; \`--as <user>\``,
  );
  row('policy', `${report.policy.version} (${report.policy.source})`);
  row('state file', `${show(devStatePath(state.dataDir))} (other mve-orders commands read it)`);
  lines.push(
    '',
    // The example is below the staging policy's auto-approve line: it is bought without a vote, so say so.
    'ready: try `npm run demo` (an order through approval to BOUGHT), or `npx mve-orders submit examples/k09-license-file-firewall.json --as ticket-bot` (auto-approved in staging) then `npx mve-orders status CHG-1009 --as ticket-bot`. Ctrl-C stops.',
    '',
  );
  return lines.join('\n');
}

/** Which Temporal runs, and where its state and logs are. */
function describeTemporal(server: DevReport['temporalServer'], show: (path: string) => string): string {
  if (server.kind === 'external') return 'TEMPORAL_ADDRESS';
  const carried = `kept across restarts: ${runs(server.openRuns)} carried over`;
  if (server.kind === 'real')
    return (
      `temporal server start-dev: Server ${server.version}, CLI at ${show(server.cli.path)} (${server.cli.via}); ` +
      `state in ${show(server.dbFile)}, ${carried}; log in ${show(server.logFile)}`
    );
  return (
    `a Temporal cluster: Server ${server.version} built from go.temporal.io/server, ${server.processes.length} ` +
    `processes, ${server.historyShards} history shards; state in ${server.database}, ${carried}; config and logs ` +
    `in ${show(server.dir)}`
  );
}

/** What the reader should know first: ports that moved, orders an earlier server strands. */
function notices(report: DevReport): string[] {
  const lines = report.movedPorts.map(
    (moved) =>
      `  note: port ${moved.preferred} (${moved.what}) is taken by another program; using port ${moved.used} instead`,
  );
  const earlier = report.earlierOrders;
  if (earlier && !earlier.dropped && (earlier.openRuns > 0 || earlier.stranded.length > 0))
    lines.push(
      `  warning: ${strandedOrders(earlier)} and ${runs(earlier.openRuns)} of the Temporal server dev embedded up to ${LAST_EMBEDDED_COMMIT}, retired since, do not go on here (see "earlier state" below)`,
    );
  return lines;
}

const runs = (count: number) => `${count} open workflow run${count === 1 ? '' : 's'}`;

/** The stranded orders, by ticket id (the first few). */
function strandedOrders(earlier: EarlierOrders): string {
  const count = earlier.stranded.length;
  const tickets = earlier.stranded.slice(0, 5).map((order) => order.ticketId);
  const named = count ? ` (${tickets.join(', ')}${count > tickets.length ? ', …' : ''})` : '';
  return `${count} order${count === 1 ? '' : 's'}${named}`;
}

function describeEarlier(earlier: EarlierOrders): string {
  const what = `schema ${earlier.schema} of the database, the state of the Temporal server dev embedded up to ${LAST_EMBEDDED_COMMIT} (retired since)`;
  if (earlier.dropped)
    return `${what}: dropped; ${strandedOrders(earlier)} it stranded ended in the records, saying why`;
  if (earlier.openRuns === 0 && earlier.stranded.length === 0)
    return `${what}: nothing open in it; \`npx mve-orders dev --drop-earlier-orders\` drops it`;
  return (
    `${what}: ${runs(earlier.openRuns)} in it; ${strandedOrders(earlier)} of the records not ended that this Temporal ` +
    `does not know. Finish them with that version (\`git checkout ${LAST_EMBEDDED_COMMIT} && npm ci && npm start -- ` +
    `--temporal embedded\`), or end them in the records and drop the schema (\`npx mve-orders dev ` +
    `--drop-earlier-orders\`); docs/running.md, "Data from before"`
  );
}
