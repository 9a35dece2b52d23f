import { InvalidArgumentError, type Command } from 'commander';
import type { OrdersApiClient } from '../../http-client/index.js';
import {
  API_URL_VARIABLE,
  loadClientSettings,
  missingTokenMessage,
  NotConfiguredError,
  TOKEN_VARIABLE,
  type ClientSettings,
} from '../settings.js';
import { DEV_USERS } from '../dev-users.js';
import type { OrderState } from '../../../domain/lifecycle/index.js';

/** The HTTP client's module, loaded when a command runs (after its settings are found), not when it is registered. */
type HttpClientModule = typeof import('../../http-client/index.js');

/** A failure the command explains itself; exit 1 when the order or the engine refused, 2 when the input is unusable. */
export class CliFailure extends Error {
  constructor(
    readonly exitCode: 1 | 2,
    message: string,
    readonly code = exitCode === 1 ? 'REFUSED' : 'UNUSABLE_INPUT',
    readonly details?: unknown,
    /** The API's HTTP status, when the API answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface OutputOptions {
  json?: boolean;
}

/** What every order command takes: `--json`, and `--as <user>` (a seeded user of the running dev). */
export interface OrderCommandOptions extends OutputOptions {
  as?: string;
}

export interface OrderSession {
  api: OrdersApiClient;
  settings: ClientSettings;
}

/** The order commands' help: where they send requests and as whom. */
export const API_HELP = `
Where and as whom (every order command goes through the mve-orders HTTP API):
  ${API_URL_VARIABLE}   the API, e.g. https://orders.example.com; unset: the running \`mve-orders dev\`
                (\`npm start\`), found through .data/dev.json (or $MVE_DATA_DIR/dev.json)
  ${TOKEN_VARIABLE}     your bearer token: an API token (mvo_…, \`mve-orders tokens create\`) or an OIDC
                access token. Who you are comes from it alone: no option names an approver or actor.
  --as <user>   dev only: use the token of a seeded user of the running dev, one of
                ${DEV_USERS.map((user) => `${user.id} (${user.roles.join(',')})`).join(', ')}.
                Refused when ${API_URL_VARIABLE} is set: set ${TOKEN_VARIABLE} instead.
Exit codes: 0 done; 1 refused by the API (400 bad input, 403 not allowed, 404 no such order, 409 conflict or
stale quote, 422 refused by a rule); 2 unusable input, bad credentials (401) or no API to talk to.`;

/** Adds `--as <user>` and the help on MVE_API_URL, MVE_TOKEN and `--as`; usage mistakes exit 2. */
export function orderCommand(command: Command): Command {
  return usageErrorsExit2(command)
    .option(
      '--as <user>',
      'dev only: act as this seeded user of the running `mve-orders dev` (its token from dev.json)',
      nonEmpty('--as'),
    )
    .addHelpText('afterAll', API_HELP);
}

/**
 * Runs one order command: finds the API (MVE_API_URL, else the running `mve-orders dev`) and the caller's
 * token (`--as` in dev, else MVE_TOKEN), and turns every known failure into a clear message and exit code.
 */
export async function runOrderCommand(
  name: string,
  options: OrderCommandOptions,
  work: (session: OrderSession) => Promise<void>,
): Promise<void> {
  let client: HttpClientModule | undefined;
  let api: OrdersApiClient | undefined;
  let settings: ClientSettings | undefined;
  try {
    settings = await loadClientSettings(process.env, { as: options.as });
    if (!settings.token) throw new CliFailure(2, missingTokenMessage(settings), 'NO_TOKEN');
    client = await import('../../http-client/index.js');
    api = new client.OrdersApiClient({
      url: settings.apiUrl,
      token: settings.token,
      unreachableHint: unreachableHint(settings),
    });
    await work({ api, settings });
  } catch (error) {
    report(name, options, asCliFailure(error, settings, client));
  } finally {
    api?.close();
  }
}

/** Writes the failure (as JSON on stdout with --json, always on stderr) and sets the exit code. */
export function report(name: string, output: OutputOptions, failure: CliFailure): void {
  if (output.json) {
    const error = {
      code: failure.code,
      message: failure.message,
      ...(failure.status !== undefined ? { status: failure.status } : {}),
      ...(failure.details !== undefined ? { details: failure.details } : {}),
    };
    process.stdout.write(`${JSON.stringify({ error }, null, 2)}\n`);
  }
  const lines = [`mve-orders ${name}: ${failure.message}`];
  // A 400 names each problem: one `path: message` a line.
  if (failure.status === 400 && Array.isArray(failure.details)) {
    for (const detail of failure.details as Array<{ path: string; message: string }>)
      lines.push(`  ${detail.path}: ${detail.message}`);
  }
  process.stderr.write(`${lines.join('\n')}\n`);
  process.exitCode = failure.exitCode;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Where an order went after a cancel or a buy resolution. The API answers with a state: a final one is where
 * the action led; any other is the state the order took the action in (a buy resolution is acted on right
 * after), so this waits briefly for the order to move on. `settled` false: it had not moved within
 * `timeoutMs` (the action still stands; `status` will show where it went).
 */
export async function stateAfter(
  api: OrdersApiClient,
  ticket: string,
  answered: OrderState,
  timeoutMs = 5_000,
): Promise<{ state: OrderState; settled: boolean }> {
  const { FINAL_STATES } = await import('../../../domain/lifecycle/index.js');
  if (FINAL_STATES.has(answered)) return { state: answered, settled: true };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const order = await api.get(ticket).catch(() => undefined);
    if (order && order.state !== answered) return { state: order.state, settled: true };
    if (!order || Date.now() >= deadline) return { state: answered, settled: false };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How commands that take an order describe their argument. */
export const ORDER_ARGUMENT =
  'the order id, or the ticket id it was submitted with (yours, or one no other order you may see has)';

/** `--as fiona` again when the user gave it, so a command we print for them works as it stands. */
export function asFlag(options: OrderCommandOptions): string {
  return options.as ? ` --as ${options.as}` : '';
}

function unreachableHint(settings: ClientSettings): string {
  if (settings.dev) {
    return `the mve-orders dev (pid ${settings.dev.pid}) that wrote ${settings.dev.dataDir}/dev.json does not answer there; restart it with \`npm start\``;
  }
  return `check ${API_URL_VARIABLE} (is the API running there?), or unset it and run \`npm start\` for a local engine`;
}

/** `client`: the HTTP client's module, once loaded: before, no error can be one of its own. */
function asCliFailure(
  error: unknown,
  settings: ClientSettings | undefined,
  client: HttpClientModule | undefined,
): CliFailure {
  if (error instanceof CliFailure) return error;
  if (error instanceof NotConfiguredError) return new CliFailure(2, error.message, 'NOT_CONFIGURED');
  if (client && error instanceof client.ApiUnreachableError) return new CliFailure(2, error.message, 'CANNOT_CONNECT');
  if (client && error instanceof client.ApiCallError) {
    const details = error.details.length > 0 ? error.details : undefined;
    if (error.status === 401) {
      return new CliFailure(2, `${error.message}; ${badCredentialsHint(settings)}`, error.code, details, error.status);
    }
    if (error.status >= 400 && error.status < 500) {
      const message =
        error.status === 404
          ? `${error.message} (see \`mve-orders orders\`)`
          : error.status === 400
            ? error.message
            : `refused (${error.code}): ${error.message}`;
      return new CliFailure(1, message, error.code, details, error.status);
    }
    if (error.code === 'UNEXPECTED_RESPONSE' || error.code.startsWith('HTTP_'))
      return new CliFailure(2, error.message, error.code, details, error.status);
    return new CliFailure(
      2,
      `the API failed (HTTP ${error.status} ${error.code}): ${error.message}`,
      error.code,
      details,
      error.status,
    );
  }
  return new CliFailure(2, error instanceof Error ? error.message : String(error), 'FAILED');
}

function badCredentialsHint(settings: ClientSettings | undefined): string {
  const source = settings?.tokenSource;
  if (source?.startsWith('--as')) {
    return `the token of ${source} was refused: the running dev makes its users' tokens anew at each start; check that it is the dev that wrote dev.json`;
  }
  if (source === TOKEN_VARIABLE)
    return `the API refused ${TOKEN_VARIABLE}: check that it is whole and not revoked or expired (\`mve-orders tokens list\`)`;
  return `give a token: ${TOKEN_VARIABLE}, or --as <user> with \`mve-orders dev\``;
}

/**
 * Usage mistakes (a missing option, a malformed value) are unusable input: exit 2, after commander has said
 * what was wrong. Help and version still exit 0.
 */
export function usageErrorsExit2(command: Command): Command {
  return command.exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));
}

/** Commander argument parsers that name the option and its rule. */
export function parseAmount(option: string) {
  return (value: string): number => {
    const amount = Number(value);
    if (value.trim() === '' || !Number.isFinite(amount) || amount < 0) {
      throw new InvalidArgumentError(
        `${option} must be a number of at least 0 (the monthly rate of the quote, e.g. 3236.4)`,
      );
    }
    return amount;
  };
}

export function parseCurrency(option: string) {
  return (value: string): string => {
    const currency = value.trim().toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency))
      throw new InvalidArgumentError(`${option} must be a three-letter currency code, e.g. AUD`);
    return currency;
  };
}

export function nonEmpty(option: string) {
  return (value: string): string => {
    if (value.trim() === '') throw new InvalidArgumentError(`${option} must not be empty`);
    return value.trim();
  };
}

export function parseLimit(option: string, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > max) {
      throw new InvalidArgumentError(`${option} must be a whole number from 1 to ${max}`);
    }
    return Number(value);
  };
}
