/**
 * The order dev stops its parts in, whatever the order they started in, and how long each may take: the worker
 * lets running tasks finish (an API call may take its 30 s), PostgreSQL makes a last checkpoint.
 */
export const STOP_STEPS = {
  state: { order: 0, name: 'state file', stopped: 'state file removed', limitMs: 5_000 },
  http: { order: 1, name: 'HTTP API', stopped: 'HTTP API closed', limitMs: 15_000 },
  worker: { order: 2, name: 'worker', stopped: 'worker stopped', limitMs: 60_000 },
  // After the worker: what its last tasks recorded is told too.
  attention: { order: 3, name: 'order events', stopped: 'order events no longer followed', limitMs: 15_000 },
  simulator: { order: 4, name: 'API simulator', stopped: 'API simulator closed', limitMs: 15_000 },
  temporal: { order: 5, name: 'Temporal', stopped: 'Temporal closed', limitMs: 30_000 },
  // Its kinds one after the other (frontends first), each process given up to 10 s before it is killed.
  temporalCluster: { order: 5, name: 'Temporal cluster', stopped: 'Temporal cluster stopped', limitMs: 60_000 },
  postgres: { order: 6, name: 'PostgreSQL', stopped: 'PostgreSQL stopped', limitMs: 30_000 },
} as const;

export type StopStep = (typeof STOP_STEPS)[keyof typeof STOP_STEPS];

/** A part's stop. It may return its own line for the report (PostgreSQL that had already ended). */
type Stop = () => Promise<string | void>;

/**
 * Everything dev started, stopped in the order of STOP_STEPS: on a normal stop, and on a failure half-way through the
 * start. Each step is reported as it ends; one that fails, or does not end in its time, is reported and the next taken.
 */
export class DevStops {
  private readonly stops: Array<{ step: StopStep; stop: Stop }> = [];

  constructor(private readonly log: (line: string) => void) {}

  add(step: StopStep, stop: Stop): void {
    this.stops.push({ step, stop });
  }

  /** Stops every part added so far, once. */
  async stopAll(report: (line: string) => void = this.log): Promise<void> {
    const steps = this.stops.splice(0).sort((a, b) => a.step.order - b.step.order);
    for (const { step, stop } of steps) report(await stopInTime(step, stop));
  }
}

/** The line that reports the step: how it stopped, how it failed, or that it did not end in its time. */
async function stopInTime(step: StopStep, stop: Stop): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`${step.name} did not stop within ${step.limitMs / 1000} s; going on`),
      step.limitMs,
    );
  });
  try {
    return await Promise.race([
      stop().then(
        (own) => own || step.stopped,
        (error: unknown) => `while stopping the ${step.name}: ${(error as Error).message}`,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A promise that never settles: the loss of a server dev did not start. */
export const NEVER_LOST: Promise<string> = new Promise(() => {});

/**
 * Watches a server dev started for an end nobody asked for (killed, crashed, stopped by someone else): `lost`
 * resolves, saying how, only then. `ask()`, called as dev stops it, returns how it had already ended, if it had.
 */
export function watchUnaskedEnd(exited: Promise<string>): { lost: Promise<string>; ask: () => string | undefined } {
  let ended: string | undefined;
  let asked = false;
  const lost = new Promise<string>((resolve) => {
    void exited.then((how) => {
      ended = how;
      if (!asked) resolve(how);
    });
  });
  const ask = () => {
    asked = true;
    return ended;
  };
  return { lost, ask };
}
