import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  DEFAULT_PROVISIONING,
  DEFAULT_SEED,
  DEFAULT_TOKEN_TTL_SECONDS,
  SIM_PRODUCT_READ_MODES,
} from '../sim/defaults.js';
import type { SimClient, SimEnvironment, SimProductReadMode, Simulator } from '../sim/index.js';

export const DEFAULT_SIM_PORT = 4010;

export function registerSimCommand(program: Command): void {
  program
    .command('sim')
    .description('Run the ordering-API simulator (API and /oauth2/token on one port) until Ctrl-C')
    .option('--port <port>', 'port to listen on (0 picks a free one)', parseWhole('port', 0, 65535), DEFAULT_SIM_PORT)
    .option('--seed <seed>', 'seed of the generated catalog', parseWhole('seed', 0, 2 ** 32 - 1), DEFAULT_SEED)
    .option(
      '--token-ttl <seconds>',
      'lifetime of issued tokens',
      parseWhole('token-ttl', 1, 86_400),
      DEFAULT_TOKEN_TTL_SECONDS,
    )
    .option(
      '--configured-after <ms>',
      'a bought product is CONFIGURED this long after its creation',
      parseWhole('configured-after', 0, 86_400_000),
      DEFAULT_PROVISIONING.configuredAfterMs,
    )
    .option(
      '--live-after <ms>',
      'and LIVE this long after it (at least --configured-after)',
      parseWhole('live-after', 0, 86_400_000),
      DEFAULT_PROVISIONING.liveAfterMs,
    )
    .addOption(
      new Option('--product-read <mode>', 'whether GET /v2/product/{uid} is offered, or answers 404 or 405')
        .choices(SIM_PRODUCT_READ_MODES)
        .default('offered'),
    )
    .option('--log', 'print one line per request (method, path, status, time)')
    .action(async (options: SimOptions) => {
      if (options.liveAfter < options.configuredAfter) {
        throw new Error(
          `--live-after (${options.liveAfter}) must be at least --configured-after (${options.configuredAfter})`,
        );
      }
      const { startSimulator } = await import('../sim/index.js');
      let sim: Simulator;
      try {
        sim = await startSimulator({
          port: options.port,
          seed: options.seed,
          tokenTtlSeconds: options.tokenTtl,
          provisioning: { configuredAfterMs: options.configuredAfter, liveAfterMs: options.liveAfter },
          productRead: options.productRead,
          clients: clientsFromEnv(process.env),
          ...(options.log ? { log: (line: string) => process.stdout.write(`${line}\n`) } : {}),
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new Error(
            `port ${options.port} is already in use: pass --port with another port (or 0 for any free port)`,
          );
        }
        throw error;
      }
      process.stdout.write(describe(sim));
      await new Promise<void>((resolve) => {
        const stop = () => void sim.close().then(resolve);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      process.stdout.write('simulator stopped\n');
    });
}

interface SimOptions {
  port: number;
  seed: number;
  tokenTtl: number;
  configuredAfter: number;
  liveAfter: number;
  productRead: SimProductReadMode;
  log?: boolean;
}

/** MVE_CLIENT_ID / MVE_CLIENT_SECRET, when set, become the Company Admin key of MVE_ENVIRONMENT (default staging). */
function clientsFromEnv(env: NodeJS.ProcessEnv): SimClient[] | undefined {
  const clientId = env['MVE_CLIENT_ID'];
  const clientSecret = env['MVE_CLIENT_SECRET'];
  if (!clientId || !clientSecret) return undefined;
  const environment: SimEnvironment = env['MVE_ENVIRONMENT'] === 'production' ? 'production' : 'staging';
  const other: SimEnvironment = environment === 'staging' ? 'production' : 'staging';
  const secret = () => randomUUID();
  return [
    { environment, clientId, clientSecret, role: 'Company Admin' },
    { environment, clientId: `sim-${environment}-readonly`, clientSecret: secret(), role: 'Read Only' },
    { environment: other, clientId: `sim-${other}-admin`, clientSecret: secret(), role: 'Company Admin' },
  ];
}

function describe(sim: Simulator): string {
  const state = sim.state();
  const lines = [`MVE API simulator listening on ${sim.url}`, ''];
  for (const [environment, urls] of Object.entries(sim.environments)) {
    lines.push(`  ${environment.padEnd(11)} base URL ${urls.baseUrl}   token URL ${urls.authUrl}/oauth2/token`);
  }
  lines.push('', 'API keys (client id, secret):');
  for (const client of sim.clients) {
    lines.push(
      `  ${client.environment.padEnd(11)} ${client.role.padEnd(14)} ${client.clientId}  ${client.clientSecret}`,
    );
  }
  lines.push(
    '',
    'Point mve-orders at it:',
    `  export MVE_ENVIRONMENT=${sim.environment} MVE_API_BASE_URL=${sim.baseUrl} MVE_AUTH_URL=${sim.authUrl} \\`,
    `         MVE_CLIENT_ID=${sim.clientId} MVE_CLIENT_SECRET=${sim.clientSecret}`,
    '',
    `Bought products: CONFIGURED after ${state.provisioning.configuredAfterMs} ms, LIVE after ` +
      `${state.provisioning.liveAfterMs} ms; product read ${state.productRead}`,
    `Admin (faults, counters, settings): ${sim.url}/_sim/state`,
    'Press Ctrl-C to stop.',
    '',
  );
  return lines.join('\n');
}

function parseWhole(name: string, min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`--${name} must be a whole number from ${min} to ${max}`);
    }
    return Number(value);
  };
}
