import { readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { freePort } from '../temporal/free-port.js';

/** The ports dev prefers on a first start (later starts prefer the last start's). */
export const DEFAULT_TEMPORAL_PORT = 7233;
export const DEFAULT_TEMPORAL_UI_PORT = 8233;
export const DEFAULT_SIMULATOR_PORT = 4010;
export const DEFAULT_HTTP_PORT = 8080;

/**
 * The preferred port when it is free on `host`, else 0 (any free port). Checked by binding it briefly: the
 * server that then takes it could still lose a race, and says so when it does.
 */
export async function preferredOrFree(preferred: number, host: string): Promise<{ port: number; taken: boolean }> {
  if (preferred === 0) return { port: 0, taken: false };
  const free = await new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen(preferred, host, () => probe.close(() => resolve(true)));
  });
  return free ? { port: preferred, taken: false } : { port: 0, taken: true };
}

/**
 * For a program that must be told its port before it starts (the real Temporal server and its Web UI, and the API
 * whose URL the Web UI is given): the preferred port when free, else — and for 0 — a port free now.
 */
export async function concretePort(preferred: number, host: string): Promise<{ port: number; taken: boolean }> {
  const choice = await preferredOrFree(preferred, host);
  if (choice.port !== 0) return choice;
  return { port: await freePort(host), taken: choice.taken };
}

/**
 * A port as `concretePort` chooses it, held (bound) until `release`: for a server that starts well after its port must
 * be known (the API, whose URL the real Temporal's Web UI is given first). Held, the port is not handed out to another
 * socket meanwhile, which a port only probed was (EADDRINUSE when the API then listened).
 */
export async function heldPort(
  preferred: number,
  host: string,
): Promise<{ port: number; taken: boolean; release: () => Promise<void> }> {
  const choice = await concretePort(preferred, host);
  const holder = net.createServer();
  holder.unref();
  const held = await new Promise<boolean>((resolve) => {
    holder.once('error', () => resolve(false));
    holder.listen(choice.port, host, () => resolve(true));
  });
  const release = () => (held ? new Promise<void>((resolve) => holder.close(() => resolve())) : Promise.resolve());
  return { ...choice, release };
}

/** The ports of the last start, kept in the data folder so URLs and addresses stay the same across restarts. */
export const DEV_PORTS_FILE = 'dev-ports.json';

export interface DevPorts {
  http?: number;
  temporal?: number;
  temporalUi?: number;
  simulator?: number;
}

/** The ports the last start used (none when it never ran, or the file is unreadable). */
export async function rememberedPorts(dataDir: string): Promise<DevPorts> {
  try {
    const saved: unknown = JSON.parse(await readFile(join(dataDir, DEV_PORTS_FILE), 'utf8'));
    if (!saved || typeof saved !== 'object') return {};
    return Object.fromEntries(Object.entries(saved).filter((entry): entry is [string, number] => isPort(entry[1])));
  } catch {
    return {};
  }
}

const isPort = (port: unknown): port is number =>
  typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536;

export async function rememberPorts(dataDir: string, ports: DevPorts): Promise<void> {
  await writeFile(join(dataDir, DEV_PORTS_FILE), `${JSON.stringify(ports, null, 2)}\n`, { mode: 0o600 });
}
