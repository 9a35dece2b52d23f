import {
  concretePort,
  DEFAULT_HTTP_PORT,
  DEFAULT_SIMULATOR_PORT,
  DEFAULT_TEMPORAL_PORT,
  DEFAULT_TEMPORAL_UI_PORT,
  heldPort,
  preferredOrFree,
  rememberedPorts,
  rememberPorts,
  type DevPorts,
} from './ports.js';

/** Every server dev starts listens on this machine only. */
export const HOST = '127.0.0.1';

/**
 * Preferred ports of the servers dev starts; when taken, a free port is used and reported. 0: any free port.
 * Undefined: the port of the last start in this data folder (`dev-ports.json`), else the default (8080 for the
 * HTTP API, 7233 Temporal, 8233 its Web UI, 4010 the simulator), so URLs stay the same across restarts.
 */
export interface GivenPorts {
  temporalPort?: number | undefined;
  simulatorPort?: number | undefined;
  httpPort?: number | undefined;
  temporalUiPort?: number | undefined;
}

/** A preferred port found taken, and the port used instead. */
export interface MovedPort {
  what: string;
  preferred: number;
  used: number;
}

type Server = keyof DevPorts;

/** The ports dev prefers for its servers and the ports they got: those kept for the next start, moved ones reported. */
export class PortPlan {
  readonly used: DevPorts = {};
  readonly moved: MovedPort[] = [];

  private constructor(
    private readonly dataDir: string,
    private readonly preferred: Required<DevPorts>,
  ) {}

  /** A port given wins; else the port of the last start in this data folder; else the default. */
  static async forStart(given: GivenPorts, dataDir: string): Promise<PortPlan> {
    const remembered = await rememberedPorts(dataDir);
    return new PortPlan(dataDir, {
      http: given.httpPort ?? remembered.http ?? DEFAULT_HTTP_PORT,
      temporal: given.temporalPort ?? remembered.temporal ?? DEFAULT_TEMPORAL_PORT,
      temporalUi: given.temporalUiPort ?? remembered.temporalUi ?? DEFAULT_TEMPORAL_UI_PORT,
      simulator: given.simulatorPort ?? remembered.simulator ?? DEFAULT_SIMULATOR_PORT,
    });
  }

  /** For a server that picks its own port: the preferred one when free, else 0 (ports.ts). */
  preferredOrFree(server: Server): Promise<{ port: number; taken: boolean }> {
    return preferredOrFree(this.preferred[server], HOST);
  }

  /** For a server that must be told its port before it starts (ports.ts). */
  concrete(server: Server): Promise<{ port: number; taken: boolean }> {
    return concretePort(this.preferred[server], HOST);
  }

  /** A concrete port, held until `release` (ports.ts). */
  held(server: Server): Promise<{ port: number; taken: boolean; release: () => Promise<void> }> {
    return heldPort(this.preferred[server], HOST);
  }

  /** `server` (`what` in the summary) listens on `port`: kept for the next start, and reported if it moved. */
  got(server: Server, what: string, port: number, taken: boolean): void {
    if (taken) this.moved.push({ what, preferred: this.preferred[server], used: port });
    this.used[server] = port;
  }

  /** Keeps the ports used in the data folder, for the next start to prefer. */
  remember(): Promise<void> {
    return rememberPorts(this.dataDir, this.used);
  }
}
