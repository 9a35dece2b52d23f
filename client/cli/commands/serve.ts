import { InvalidArgumentError, type Command } from 'commander';
import type { Logger } from '../../../infra/log.js';
import type { RunningApi, ShutdownTiming } from '../../server/index.js';
import { CliFailure, report } from './order-session.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description(
      'Run the HTTP API (intake, approvals, ops views, codec server) against a real deployment until SIGINT/SIGTERM',
    )
    .option('--host <host>', 'interface to listen on', '0.0.0.0')
    .option('--port <port>', 'port to listen on', portNumber, 8080)
    .option('--database-url <url>', 'PostgreSQL URL (default: $DATABASE_URL)')
    .addHelpText(
      'after',
      `
Reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE (and TEMPORAL_TLS*, TEMPORAL_API_KEY),
DATABASE_URL, MVE_CODEC_KEYS, MVE_ACTION_KEY (the same as the workers': it signs every vote, cancel and
resolution), MVE_KIND_MAP, and for people signing in with OIDC: MVE_OIDC_ISSUER, MVE_OIDC_AUDIENCE,
MVE_OIDC_ROLES_CLAIM (default roles), MVE_OIDC_USERNAME_CLAIM (default preferred_username), MVE_OIDC_JWKS_URL.
MVE_CODEC_CORS_ORIGINS lists the Temporal Web UI origins allowed to call the codec server.
MVE_REQUEST_TIMEOUT (default 15s) is how long a request may take before it is answered 503 TIMEOUT.
MVE_RATE_LIMIT (default 600) is the requests a minute each credential may make (0: no limit); over it, 429.
MVE_RATE_LIMIT_AUTH_FAILURES (default 20; 0: no limit) failed authentications from one address within
MVE_RATE_LIMIT_AUTH_WINDOW (default 1m) make every request from it 429 until the window ends. Behind a load
balancer, MVE_TRUST_PROXY names it (addresses or CIDR ranges), so the address is the client's it forwards.
MVE_LIVE_READS (default 8) is how many reads of orders it may have at Temporal at once; past it, a read
answers from the records (source: records), so polls never hold up votes.
On SIGTERM/SIGINT /readyz answers 503 "draining", the listener closes after MVE_SHUTDOWN_DRAIN (default 5s),
requests in flight are answered, and it exits 0; what is still open after MVE_SHUTDOWN_GRACE (default 25s,
counted from the signal) is cut, and it exits 1.
MVE_LOG_FORMAT=json prints one JSON object a line on stdout, a line per request among them (default text);
MVE_LOG_LEVEL: debug, info, warn, error.
Machines authenticate with API tokens (\`mve-orders tokens create\`). The routes are in GET /openapi.json
and docs/http-api.md.`,
    )
    .action(async (options: { host: string; port: number; databaseUrl?: string }) => {
      let say: Logger;
      let api: RunningApi;
      let timing: ShutdownTiming;
      try {
        const { createLogger, logSettingsFromEnv } = await import('../../../infra/log.js');
        const settings = logSettingsFromEnv(process.env);
        // In text, what it says of itself on stdout and the rest on stderr, as always; in json, all on stdout.
        say = createLogger({ service: 'serve', settings, textStream: process.stdout });
        const logger = createLogger({ service: 'serve', settings, textStream: process.stderr });
        const { openDatabase, resolveDatabaseUrl } = await import('../../../infra/db/index.js');
        const { resolveKeyring } = await import('../../../codec/index.js');
        const { resolveActionKeys } = await import('../../../config/action-keys.js');
        const { kindMapFromEnv } = await import('../../../infra/catalog/index.js');
        const { startApiServer, shutdownTimingFromEnv } = await import('../../server/index.js');
        timing = shutdownTimingFromEnv(process.env);
        const databaseUrl = resolveDatabaseUrl(options.databaseUrl);
        await (await openDatabase(databaseUrl, { maxConnections: 1 })).end();
        api = await startApiServer({
          env: process.env,
          databaseUrl,
          codecKeys: await resolveKeyring({ env: process.env }),
          actionKeys: await resolveActionKeys({ env: process.env }),
          kindMap: kindMapFromEnv(process.env),
          host: options.host,
          port: options.port,
          log: logger.line,
          accessLog: logger,
        });
      } catch (error) {
        return report('serve', {}, new CliFailure(2, (error as Error).message, 'CANNOT_START'));
      }
      say.info(`HTTP API listening on ${api.url} (OpenAPI: ${api.url}/openapi.json)`);
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      say.info(`${signal}: stopping the HTTP API`);
      if (!(await api.close(timing))) process.exitCode = 1;
    });
}

function portNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError('--port must be a whole number from 0 to 65535');
  return Number(value);
}
