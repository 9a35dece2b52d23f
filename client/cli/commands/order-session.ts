import { InvalidArgumentError, type Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { encryptingDataConverter } from '../../../codec/index.js';
import { connectionOptions } from '../../../config/temporal.js';
import { loadClientSettings, type ClientSettings } from '../../config.js';
import {
  DuplicateOrderError,
  OrderClient,
  OrderNotFoundError,
  OrderRefusedError,
  OrderRequestError,
} from '../../orders/index.js';

/** A failure the command explains itself; exit 1 when the order or the engine refused, 2 when the input is unusable. */
export class CliFailure extends Error {
  constructor(
    readonly exitCode: 1 | 2,
    message: string,
    readonly code = exitCode === 1 ? 'REFUSED' : 'UNUSABLE_INPUT',
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export interface OutputOptions {
  json?: boolean;
}

export interface OrderSession {
  orders: OrderClient;
  client: Client;
  settings: ClientSettings;
}

/**
 * Runs one order command: finds the engine (environment variables, else the running `mve-orders dev`), connects
 * with the encrypting codec, and turns every known failure into a clear message and exit code.
 */
export async function runOrderCommand(
  name: string,
  output: OutputOptions,
  work: (session: OrderSession) => Promise<void>,
): Promise<void> {
  let connection: Connection | undefined;
  try {
    const settings = await loadSettings();
    connection = await connect(settings);
    const client = new Client({ connection, namespace: settings.temporal.namespace, dataConverter: encryptingDataConverter(settings.keyring) });
    const orders = new OrderClient({ client, taskQueue: settings.temporal.taskQueue, kindMap: settings.kindMap });
    await work({ orders, client, settings });
  } catch (error) {
    report(name, output, asCliFailure(error));
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/**
 * Sends a message (vote, cancel, resolution) to an order. Temporal answers "not found" for a message to an
 * order that has ended, so an order that still answers its status query is reported as ended, not missing.
 */
export async function messageOrder<T>(orders: OrderClient, ticket: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof OrderNotFoundError)) throw error;
    const view = await orders.status(ticket).catch(() => undefined);
    if (!view) throw error;
    throw new CliFailure(1, `the order of ${ticket} has ended (${view.state}); it takes no more messages`, 'ORDER_ENDED');
  }
}

/** Writes the failure (as JSON on stdout with --json, always on stderr) and sets the exit code. */
export function report(name: string, output: OutputOptions, failure: CliFailure): void {
  if (output.json) {
    const error = { code: failure.code, message: failure.message, ...(failure.details !== undefined ? { details: failure.details } : {}) };
    process.stdout.write(`${JSON.stringify({ error }, null, 2)}\n`);
  }
  process.stderr.write(`mve-orders ${name}: ${failure.message}\n`);
  process.exitCode = failure.exitCode;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function loadSettings(): Promise<ClientSettings> {
  try {
    return await loadClientSettings(process.env);
  } catch (error) {
    // Configuration errors name their variable or file: unusable input.
    throw new CliFailure(2, (error as Error).message, 'NOT_CONFIGURED');
  }
}

async function connect(settings: ClientSettings): Promise<Connection> {
  const { address } = settings.temporal;
  try {
    return await Connection.connect({ ...connectionOptions(settings.temporal, address), connectTimeout: '5s' });
  } catch (error) {
    const hint = settings.dev
      ? `the mve-orders dev (pid ${settings.dev.pid}) that wrote ${settings.dev.dataDir}/dev.json does not answer; restart it with \`npm start\``
      : 'check TEMPORAL_ADDRESS (and TEMPORAL_TLS / TEMPORAL_API_KEY for Temporal Cloud), or unset it and run `npm start`';
    throw new CliFailure(2, `cannot reach Temporal at ${address}: ${(error as Error).message}; ${hint}`, 'CANNOT_CONNECT');
  }
}

function asCliFailure(error: unknown): CliFailure {
  if (error instanceof CliFailure) return error;
  if (error instanceof OrderRequestError) return new CliFailure(1, error.message, 'INVALID_REQUEST', error.issues);
  if (error instanceof OrderRefusedError) return new CliFailure(1, `refused (${error.code}): ${error.message}`, error.code);
  if (error instanceof DuplicateOrderError) return new CliFailure(1, error.message, 'DUPLICATE_ORDER');
  if (error instanceof OrderNotFoundError) return new CliFailure(1, `${error.message} (see \`mve-orders orders\`)`, 'NOT_FOUND');
  // The client wraps gRPC errors (ServiceError): the status code and the server's words are on the cause.
  const cause = (error as { cause?: { code?: unknown; details?: unknown } }).cause;
  const grpcCode = (error as { code?: unknown }).code ?? cause?.code;
  const detail = typeof cause?.details === 'string' && cause.details !== '' ? `: ${cause.details}` : '';
  const message = `${error instanceof Error ? error.message : String(error)}${detail}`;
  if (grpcCode === 3) return new CliFailure(2, `Temporal refused the request: ${message}`, 'INVALID_ARGUMENT');
  // UNAVAILABLE / DEADLINE_EXCEEDED: the server went away or did not answer in time.
  if (grpcCode === 14 || grpcCode === 4) return new CliFailure(2, `Temporal did not answer: ${message}`, 'CANNOT_CONNECT');
  return new CliFailure(2, message, 'FAILED');
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
      throw new InvalidArgumentError(`${option} must be a number of at least 0 (the monthly rate of the quote, e.g. 3236.4)`);
    }
    return amount;
  };
}

export function parseCurrency(option: string) {
  return (value: string): string => {
    const currency = value.trim().toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) throw new InvalidArgumentError(`${option} must be a three-letter currency code, e.g. AUD`);
    return currency;
  };
}

export function nonEmpty(option: string) {
  return (value: string): string => {
    if (value.trim() === '') throw new InvalidArgumentError(`${option} must not be empty`);
    return value.trim();
  };
}
