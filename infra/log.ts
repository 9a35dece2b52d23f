/**
 * Where `mve-orders serve` and `mve-orders worker` log. MVE_LOG_FORMAT picks plain lines for a person at a terminal
 * (`text`, the default: the lines the commands always printed) or one JSON object a line on stdout for a log
 * collector (`json`); MVE_LOG_LEVEL how much (`debug`, `info`, `warn`, `error`; default info).
 *
 * Lines are written by pino: fastify's own logger, already installed with it, fast, and careful with what it
 * serialises. Every line carries `time` (ISO), `level`, `msg` and `service`, and where known what it is about:
 * `orderId`, `runId`, `ticketId`, `activity`, `traceId` (the ordering API's trace id of the call), `requestId`,
 * `method`, `route`, `status`, `ms`. Callers pass ids and outcomes only: never a header, a body, a token or a secret.
 */
import { pino, type Logger as PinoLogger } from 'pino';
import { ConfigError } from '../config/env.js';

export const LOG_FORMAT_VARIABLE = 'MVE_LOG_FORMAT';
export const LOG_LEVEL_VARIABLE = 'MVE_LOG_LEVEL';
export const LOG_FORMATS = ['text', 'json'] as const;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogService = 'serve' | 'worker' | 'dev';

export interface LogSettings {
  format: LogFormat;
  level: LogLevel;
}

/** What a line says besides its message: the ids of what it is about, and outcomes. */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/** The plain `(line) => void` most parts log through, with the ids of what the line is about where they know them. */
export type LogLine = (line: string, fields?: LogFields) => void;

export interface Logger {
  readonly format: LogFormat;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Logs at info: for the parts that take a `LogLine`. */
  readonly line: LogLine;
}

/** MVE_LOG_FORMAT and MVE_LOG_LEVEL (either case; unset or empty: the default); a bad value names the allowed ones. */
export function logSettingsFromEnv(env: NodeJS.ProcessEnv): LogSettings {
  const problems: string[] = [];
  const pick = <T extends string>(variable: string, allowed: readonly T[], fallback: T): T => {
    const value = env[variable]?.trim().toLowerCase() || fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    problems.push(`${variable}: "${env[variable]}" is not one of ${allowed.join(', ')}`);
    return fallback;
  };
  const settings = {
    format: pick(LOG_FORMAT_VARIABLE, LOG_FORMATS, 'text'),
    level: pick(LOG_LEVEL_VARIABLE, LOG_LEVELS, 'info'),
  };
  if (problems.length > 0) throw new ConfigError(problems.join('; '));
  return settings;
}

export interface LoggerOptions {
  service: LogService;
  settings: LogSettings;
  /** Text only: where info and debug lines go (warnings and errors go to stderr). JSON always goes to stdout. */
  textStream: NodeJS.WritableStream;
}

export function createLogger({ service, settings, textStream }: LoggerOptions): Logger {
  const destination =
    settings.format === 'json' ? pino.destination({ fd: 1, sync: true }) : textDestination(textStream);
  const root = pino(
    {
      level: settings.level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return wrap(root, settings.format);
}

function wrap(target: PinoLogger, format: LogFormat): Logger {
  const at =
    (level: LogLevel) =>
    (msg: string, fields?: LogFields): void => {
      if (fields) target[level](definedOnly(fields), msg);
      else target[level](msg);
    };
  return { format, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), line: at('info') };
}

function definedOnly(fields: LogFields): Record<string, string | number | boolean> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Record<
    string,
    string | number | boolean
  >;
}

/** Said by the terminal already: when, and which command. */
const NOT_IN_TEXT = new Set(['time', 'service']);

/**
 * Text: the message, then each field (`Activity failed orderId=… activity=buy`) but the words it says already, so
 * the lines the commands always printed, which name their order in words, read as they did.
 */
function textDestination(stream: NodeJS.WritableStream): { write(json: string): void } {
  return {
    write(json) {
      const { level, msg = '', ...rest } = JSON.parse(json) as Record<string, unknown>;
      const unsaid = Object.entries(rest)
        .filter(([key, value]) => !NOT_IN_TEXT.has(key) && !(typeof value === 'string' && String(msg).includes(value)))
        .map(
          ([key, value]) =>
            `${key}=${typeof value === 'string' && !/\s|"/.test(value) ? value : JSON.stringify(value)}`,
        );
      const out = level === 'warn' || level === 'error' ? process.stderr : stream;
      out.write(`${[msg, ...unsaid].join(' ')}\n`);
    },
  };
}
