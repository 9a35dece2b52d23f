import type { EarlierOrders } from './earlier-orders.js';
import type { GivenPorts, MovedPort } from './port-plan.js';
import type { DevState } from '../../client/cli/dev-state.js';
import type { TemporalServerReport } from './temporal.js';
import type { DevTemporalKind } from './temporal-kind.js';
import type { DevUser } from './users.js';

export type { TemporalServerReport };

/** The ports (port-plan.ts GivenPorts) and how the start goes. */
export interface DevOptions extends GivenPorts {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  /** End in the records the orders the retired embedded Temporal server strands, and drop its state (earlier-orders.ts). */
  dropEarlierOrders?: boolean;
  /** Which Temporal dev starts (`--temporal`): start-dev by default. */
  temporal?: DevTemporalKind;
  log: (line: string) => void;
}

/** What dev started, and what it reused from the environment, for the start-up summary. */
export interface DevReport {
  state: DevState;
  taskQueue: string;
  embedded: { postgres: boolean; simulator: boolean };
  /** The Temporal server dev started, or none (TEMPORAL_ADDRESS). */
  temporalServer: TemporalServerReport;
  /** The state an earlier dev's embedded Temporal server left in the database, and the orders it strands. */
  earlierOrders?: EarlierOrders;
  /** Where the embedded cluster keeps its data (`<data folder>/postgres`, unless root had to place it elsewhere). */
  postgresDataDir: string | undefined;
  /** Preferred ports found taken, and the ports used instead. */
  movedPorts: MovedPort[];
  codecKeyId: string;
  codecKeyFromEnvironment: boolean;
  callbackSecretFromEnvironment: boolean;
  seededApprovers: ReadonlyArray<{ id: string; roles: readonly string[] }>;
  /** The seeded users of the HTTP API, with their tokens (also in dev.json). */
  users: DevUser[];
  /** Where the approval policy the worker enforces came from, and its version. */
  policy: { version: string; source: string };
}

export interface RunningDev extends DevReport {
  /** Resolves when the worker stops on its own (a fatal worker error). */
  workerDone: Promise<void>;
  /**
   * Resolves, saying how (`exit code 0`, `signal SIGKILL`), if the embedded PostgreSQL ends before stop() asks it to:
   * killed, crashed, or stopped by someone else. Never resolves otherwise.
   */
  postgresLost: Promise<string>;
  /**
   * Likewise for the Temporal dev started: resolves, saying how and where its log is, if it ends unasked (a cluster:
   * if any of its processes does).
   */
  temporalLost: Promise<string>;
  /**
   * Removes the state file, then stops taking HTTP requests, stops the worker (letting running tasks finish), the
   * simulator and Temporal, each closing its database connections, and stops PostgreSQL last. Reports each step as
   * it ends; a step that fails, or does not end in its time (STOP_STEPS), is reported and the next one taken.
   */
  stop(report?: (line: string) => void): Promise<void>;
}
