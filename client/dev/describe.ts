import { relative } from 'node:path';
import { redactDatabaseUrl } from '../../infra/db/index.js';
import { devStatePath } from './state.js';
import type { DevReport } from './start.js';

/** The start-up summary: where each part listens, what was reused, and how to try it. */
export function describeDev(report: DevReport): string {
  const { state, embedded } = report;
  const show = (path: string) => {
    const local = relative(process.cwd(), path);
    return local === '' ? '.' : local.startsWith('..') ? path : local;
  };
  const lines = ['mve-orders dev'];
  for (const moved of report.movedPorts) {
    lines.push(
      `  note: port ${moved.preferred} (${moved.what}) is taken by another program; using port ${moved.used} instead`,
    );
  }
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(14)}${value}`);
  row('data folder', show(state.dataDir));
  row(
    'PostgreSQL',
    `${redactDatabaseUrl(state.databaseUrl)}${embedded.postgres ? ` (embedded; data in ${show(report.postgresDataDir ?? `${state.dataDir}/postgres`)})` : ' (DATABASE_URL)'}`,
  );
  const server = report.temporalServer;
  const temporalState = report.temporalState
    ? `state in ${server.kind === 'real' ? show(report.temporalState.location) : report.temporalState.location.replace(/^PostgreSQL \S+, (.*)$/, 'PostgreSQL (the database above, $1)')}, kept across restarts: ${report.temporalState.openRuns} open workflow run${report.temporalState.openRuns === 1 ? '' : 's'} carried over`
    : 'state in memory, so it starts empty on each run';
  row(
    'Temporal',
    `${state.temporal.address} (${
      server.kind === 'real'
        ? `real server ${server.version}, temporal CLI at ${show(server.cli.path)} (${server.cli.via}); ${temporalState}; log in ${show(server.logFile)}`
        : server.kind === 'embedded'
          ? `embedded devserver: ${server.why}; ${temporalState}`
          : 'TEMPORAL_ADDRESS'
    })`,
  );
  if (server.kind === 'real')
    row(
      'Web UI',
      `${server.uiUrl}  (to read payloads decoded: sign in to the console as olga, then set the UI's codec server; docs/running.md)`,
    );
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
