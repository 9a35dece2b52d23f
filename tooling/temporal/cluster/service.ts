import { createWriteStream, type WriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { superviseServer, type SupervisedServer } from '../../postgres/index.js';
import { freePort, freePortIn } from '../free-port.js';
import { serviceConfig, type ServiceConfigInput, type ServiceKind, type ServicePorts } from './config.js';

/** One process of the cluster, in its slot: killed, it can be started again on the same ports and config. */
export interface ClusterService {
  readonly kind: ServiceKind;
  /** `history-2`: the kind and its number among that kind, from 1. */
  readonly name: string;
  readonly ports: ServicePorts;
  readonly logFile: string;
  /** The process in the slot now (the last one, once it has ended). */
  readonly pid: number;
  alive(): boolean;
  /** SIGKILL, as a crash or an OOM kill; resolves once it has ended. */
  kill(): Promise<void>;
  /** Starts it again in its slot; resolves once the process runs (whether it serves yet is the caller's to find out). */
  start(): Promise<void>;
  /** Graceful stop (SIGINT); resolves once it has ended. */
  stop(): Promise<void>;
  /** Settles, saying how, when the current process ends. */
  exited(): Promise<string>;
}

/** How long a process may take to stop gracefully before it is killed. */
const GRACEFUL_STOP_MS = 10_000;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type ServiceInput = Omit<ServiceConfigInput, 'kind' | 'ports'>;

/** Loopback ports free now for one process. */
export async function servicePorts(host: string, grpc?: number): Promise<ServicePorts> {
  return {
    grpc: grpc ?? (await freePort(host)),
    // Temporal's membership table keeps it as a smallint
    membership: await freePortIn(host, 20_000, 32_767),
    pprof: await freePort(host),
    metrics: await freePort(host),
  };
}

/**
 * Writes the process's config file and starts `server --config-file … --allow-no-auth start --service <kind>` under a
 * supervisor (it ends with this process however this process ends), its output appended to `<dir>/<name>.log`.
 */
export async function startService(options: {
  binary: string;
  dir: string;
  kind: ServiceKind;
  index: number;
  ports: ServicePorts;
  input: ServiceInput;
}): Promise<ClusterService> {
  const { kind, ports } = options;
  const name = `${kind}-${options.index}`;
  const configFile = join(options.dir, `${name}.json`);
  const logFile = join(options.dir, `${name}.log`);
  // holds the database password: this account's alone
  await writeFile(configFile, JSON.stringify(serviceConfig({ ...options.input, kind, ports }), null, 2), {
    mode: 0o600,
  });
  const args = ['--config-file', configFile, '--allow-no-auth', 'start', '--service', kind];
  let log: WriteStream | undefined;
  let current: SupervisedServer | undefined;
  let running = false;
  const launch = async () => {
    log ??= createWriteStream(logFile, { flags: 'a', mode: 0o600 });
    log.write(`--- ${new Date().toISOString()} started\n`);
    const server = await superviseServer(options.binary, args, {
      name: `temporal-${name}`,
      umask: 0o077,
      output: (chunk) => {
        if (log && !log.writableEnded) log.write(chunk);
      },
    });
    current = server;
    running = true;
    void server.exited.then(() => {
      if (current === server) running = false;
    });
  };
  await launch();
  const ended = async (how: 'kill' | 'stop') => {
    const server = current!;
    if (how === 'stop') await Promise.race([server.stop(), server.exited, delay(GRACEFUL_STOP_MS)]);
    // Killed on purpose, or a graceful stop that hangs (a history host, at times, on its shards' shutdown): its state
    // is in PostgreSQL, so a kill loses nothing.
    if (running) process.kill(server.pid, 'SIGKILL');
    await server.exited;
  };
  return {
    kind,
    name,
    ports,
    logFile,
    get pid() {
      return current!.pid;
    },
    alive: () => running,
    kill: () => ended('kill'),
    start: launch,
    async stop() {
      await ended('stop');
      await new Promise<void>((resolve) => (log ? log.end(() => resolve()) : resolve()));
      log = undefined;
    },
    exited: () => current!.exited,
  };
}
