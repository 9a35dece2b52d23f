import { devDataDir } from '../../client/cli/dev-state.js';
import { catchDatabaseClientErrors, describeDev, resetDev, startDev, type RunningDev } from '../dev/index.js';
import type { DevTemporalKind } from '../dev/temporal-kind.js';

export interface DevCommandOptions {
  reset?: boolean;
  dropEarlierOrders?: boolean;
  temporal?: DevTemporalKind;
  /** Undefined when not given: the last start's port, else the default. */
  temporalPort?: number;
  temporalUiPort?: number;
  simPort?: number;
  httpPort?: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const say = (line: string) => process.stdout.write(`${line}\n`);

/** `mve-orders dev`: starts the engine, prints its summary, and runs until a signal or a lost part stops it. */
export async function runDev(options: DevCommandOptions): Promise<void> {
  const dataDir = devDataDir(process.env);
  if (options.reset) return reset(dataDir);
  const stop = stopRequest();
  catchBrokenConnections(stop);
  const dev = await startDev({
    env: process.env,
    dataDir,
    dropEarlierOrders: options.dropEarlierOrders ?? false,
    temporal: options.temporal ?? 'start-dev',
    temporalPort: options.temporalPort,
    temporalUiPort: options.temporalUiPort,
    simulatorPort: options.simPort,
    httpPort: options.httpPort,
    log,
  });
  process.stdout.write(describeDev(dev));
  const onSignal = (signal: NodeJS.Signals) => stop.request({ why: signal, ok: true });
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  stopOnLostParts(dev, stop);

  const reason = await stop.requested;
  stop.stopping = true;
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
  await shutDown(dev, reason);
}

async function reset(dataDir: string): Promise<void> {
  const removed = await resetDev(dataDir);
  process.stdout.write(
    removed.length > 0
      ? `removed:\n${removed.map((place) => `  ${place}`).join('\n')}\nnext start begins afresh\n`
      : 'nothing to remove\n',
  );
}

/** Why dev stops: a signal (exit 0), or something it cannot run without (exit 1). */
interface StopReason {
  why: string;
  ok: boolean;
}

interface StopRequest {
  /** The first reason wins. */
  request: (reason: StopReason) => void;
  requested: Promise<StopReason>;
  /** Set once dev has begun to stop. */
  stopping: boolean;
}

function stopRequest(): StopRequest {
  let resolve: (reason: StopReason) => void = () => {};
  const requested = new Promise<StopReason>((settle) => (resolve = settle));
  return { request: (reason) => resolve(reason), requested, stopping: false };
}

/**
 * The database going away (PostgreSQL killed, or gone before a connection was closed) must not end dev with the
 * postgres client's TypeError: while running, dev stops; while stopping, it goes on.
 */
function catchBrokenConnections(stop: StopRequest): void {
  let connectionErrorSeen = false;
  catchDatabaseClientErrors((error) => {
    if (!stop.stopping) {
      stop.request({ why: `a PostgreSQL connection broke: ${error.message}`, ok: false });
    } else if (!connectionErrorSeen) {
      log(`a PostgreSQL connection was already closed (${error.message}); going on`);
    }
    connectionErrorSeen = true;
  });
}

/** Dev cannot run without its worker, PostgreSQL and Temporal: one of them ending stops dev. */
function stopOnLostParts(dev: RunningDev, stop: StopRequest): void {
  dev.workerDone.then(
    () => stop.request({ why: 'the worker stopped', ok: false }),
    (error: unknown) => stop.request({ why: `the worker failed: ${(error as Error).message}`, ok: false }),
  );
  void dev.postgresLost.then((how) => {
    if (stop.stopping) log(`PostgreSQL ended before dev stopped it (${how}); going on without it`);
    else stop.request({ why: `PostgreSQL ended on its own (${how})`, ok: false });
  });
  void dev.temporalLost.then((how) => {
    if (stop.stopping) log(`Temporal ended before dev stopped it (${how}); going on without it`);
    else stop.request({ why: `Temporal ended on its own (${how})`, ok: false });
  });
}

async function shutDown(dev: RunningDev, reason: StopReason): Promise<void> {
  // A second Ctrl-C (or SIGTERM) while stopping means "now". PostgreSQL, in a process group of its own, is
  // stopped by its supervisor as dev exits.
  const now = (signal: NodeJS.Signals) => {
    log(`${signal} while stopping: exiting now, without finishing the shutdown (PostgreSQL stops as dev exits)`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('SIGINT', now);
  process.on('SIGTERM', now);
  say(`stopping (${reason.why})`);
  await dev.stop((line) => say(`  ${line}`));
  say('stopped');
  process.exitCode = reason.ok ? 0 : 1;
  // Everything is closed, so the process ends here; should something still hold it open, do not wait for it.
  setTimeout(() => {
    log('something was still open after stopping; exiting anyway');
    process.exit();
  }, 5_000).unref();
}
