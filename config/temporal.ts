import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, parseEnv } from './env.js';

/**
 * How to reach Temporal: the embedded server by default, or a real cluster / Temporal Cloud through
 * TEMPORAL_* variables. Both the worker (NativeConnection) and the clients (Connection) take the
 * options this builds, so they always agree.
 */
const temporalEnvSchema = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('mve-orders'),
  TEMPORAL_TLS: z.enum(['true', 'false']).optional(),
  TEMPORAL_TLS_CA: z.string().min(1).optional(),
  TEMPORAL_TLS_CERT: z.string().min(1).optional(),
  TEMPORAL_TLS_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
});

export interface TemporalTlsOptions {
  serverNameOverride?: string;
  serverRootCACertificate?: Uint8Array;
  clientCertPair?: { crt: Uint8Array; key: Uint8Array };
}

export interface TemporalConfig {
  /** Undefined: no server was named, so `mve-orders dev` starts the embedded one. */
  address: string | undefined;
  namespace: string;
  taskQueue: string;
  tls: TemporalTlsOptions | boolean;
  apiKey: string | undefined;
}

export function loadTemporalConfig(env: NodeJS.ProcessEnv = process.env): TemporalConfig {
  const vars = parseEnv(temporalEnvSchema, env);
  if ((vars.TEMPORAL_TLS_CERT === undefined) !== (vars.TEMPORAL_TLS_KEY === undefined)) {
    throw new ConfigError('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY: give both (mTLS) or neither');
  }
  const wantsTls =
    vars.TEMPORAL_TLS === 'true' ||
    vars.TEMPORAL_API_KEY !== undefined ||
    vars.TEMPORAL_TLS_CERT !== undefined ||
    vars.TEMPORAL_TLS_CA !== undefined;
  if (vars.TEMPORAL_TLS === 'false' && wantsTls && vars.TEMPORAL_TLS_CERT !== undefined) {
    throw new ConfigError('TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY');
  }
  return {
    address: vars.TEMPORAL_ADDRESS,
    namespace: vars.TEMPORAL_NAMESPACE,
    taskQueue: vars.TEMPORAL_TASK_QUEUE,
    tls: wantsTls && vars.TEMPORAL_TLS !== 'false' ? tlsOptions(vars) : false,
    apiKey: vars.TEMPORAL_API_KEY,
  };
}

function tlsOptions(vars: z.infer<typeof temporalEnvSchema>): TemporalTlsOptions | true {
  const options: TemporalTlsOptions = {};
  if (vars.TEMPORAL_TLS_SERVER_NAME) options.serverNameOverride = vars.TEMPORAL_TLS_SERVER_NAME;
  if (vars.TEMPORAL_TLS_CA) options.serverRootCACertificate = readPem('TEMPORAL_TLS_CA', vars.TEMPORAL_TLS_CA);
  if (vars.TEMPORAL_TLS_CERT && vars.TEMPORAL_TLS_KEY) {
    options.clientCertPair = {
      crt: readPem('TEMPORAL_TLS_CERT', vars.TEMPORAL_TLS_CERT),
      key: readPem('TEMPORAL_TLS_KEY', vars.TEMPORAL_TLS_KEY),
    };
  }
  return Object.keys(options).length === 0 ? true : options;
}

function readPem(variable: string, path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(`${variable}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Options for `Connection.connect` / `NativeConnection.connect`, given the address actually used. */
export function connectionOptions(config: TemporalConfig, address: string) {
  return {
    address,
    tls: config.tls,
    ...(config.apiKey !== undefined ? { apiKey: config.apiKey } : {}),
  };
}

/**
 * Orders of each environment run on their own task queue, so a worker holding a staging key never picks up
 * a production order (and the other way round).
 */
export function orderTaskQueue(base: string, environment: 'staging' | 'production'): string {
  return `${base}.${environment}`;
}
