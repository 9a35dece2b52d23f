/**
 * `npm start` in the background, as a terminal runs it, and its end at Ctrl-C: dev stops in order and exits 0, and
 * nothing of it stays (no process of the clone, no port answering).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ENV, killGroup, sleep, StepFailure, withTimeout, type StepResult } from './shell.js';

/** Generous: a cold initdb and the workflow bundle on a machine that is running the test suites too. */
const READY_MS = 300_000;
export const STOP_MS = 120_000;
const DEV_TAIL_LINES = 60;

export interface DevState {
  pid: number;
  temporal: { address: string; uiUrl?: string };
  databaseUrl: string;
  api: { simulatorUrl?: string };
  http: { url: string };
  users: Array<{ id: string; roles: string[]; token: string }>;
}

/** `npm start` as a terminal runs it: the leader of its own process group, which Ctrl-C signals whole. */
export class NpmStart {
  private output = '';
  private readonly child;
  /** How npm ended: its exit code, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** When every process that holds its output (dev included) has ended. */
  readonly closed: Promise<void>;

  constructor(cwd: string) {
    this.child = spawn('npm', ['start'], { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.output += chunk));
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.closed = new Promise((resolve) => this.child.once('close', () => resolve()));
  }

  printed(): string {
    return this.output;
  }

  tail(): string {
    return this.output.split('\n').slice(-DEV_TAIL_LINES).join('\n');
  }

  running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async waitForReady(): Promise<string> {
    const deadline = Date.now() + READY_MS;
    for (;;) {
      const ready = /^ready: .*$/m.exec(this.output);
      if (ready) return ready[0];
      if (!this.running()) throw new StepFailure('npm start ended before its ready: line', this.output);
      if (Date.now() > deadline)
        throw new StepFailure(`npm start printed no ready: line within ${READY_MS / 1000} s`, this.output);
      await sleep(200);
    }
  }

  /** Ctrl-C: SIGINT to the whole foreground group. */
  interrupt(): void {
    killGroup(this.child.pid, 'SIGINT');
  }

  kill(): void {
    killGroup(this.child.pid, 'SIGKILL');
  }
}

/** The ports dev listens on, as its state file says (the README reads its API URL from there too). */
function devPorts(state: DevState): Array<{ what: string; port: number }> {
  const portOf = (address: string) => Number(new URL(address.includes('://') ? address : `x://${address}`).port);
  const ports = [
    { what: 'HTTP API', port: portOf(state.http.url) },
    { what: 'Temporal', port: portOf(state.temporal.address) },
    { what: 'PostgreSQL', port: portOf(state.databaseUrl) },
  ];
  if (state.api.simulatorUrl) ports.push({ what: 'simulator', port: portOf(state.api.simulatorUrl) });
  if (state.temporal.uiUrl) ports.push({ what: 'Temporal Web UI', port: portOf(state.temporal.uiUrl) });
  return ports;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Processes whose command line or working folder is under one of `places`. */
function processesUnder(places: string[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      const inside = (place: string) => args.includes(place) || cwd === place || cwd.startsWith(`${place}/`);
      if (places.some(inside)) found.push(`${entry} (in ${cwd}): ${args}`);
    } catch {
      // ended meanwhile, or a kernel thread
    }
  }
  return found;
}

/**
 * Ctrl-C, as docs/running.md says it behaves: dev stops in order and exits 0, and nothing of it stays.
 *
 * npm runs the script through `sh -c`; Debian's sh (dash) waits for dev and then ends by the SIGINT it received
 * itself, whatever dev's exit code, and npm ends as its child did. So npm's own end may be that SIGINT (130 in a
 * shell) with dev's exit code unseen; dev's 0 is then read from its report: `stopping (SIGINT)`, a line per part,
 * `stopped` and nothing after, which it prints only on the way to exit 0.
 */
export async function stopDev(
  dev: NpmStart,
  state: DevState,
  clone: string,
  clusterDir: string | undefined,
): Promise<StepResult> {
  dev.interrupt();
  const npm = await withTimeout(dev.exited, STOP_MS, 'npm start did not exit');
  await withTimeout(dev.closed, STOP_MS, 'dev did not stop');
  const printed = dev.printed();
  if (npm.code !== 0 && npm.signal !== 'SIGINT')
    throw new StepFailure(`npm start ended with ${npm.code ?? npm.signal} at Ctrl-C`, printed);
  if (!/\nstopping \(SIGINT\)\n(?: {2}.*\n)+stopped\n$/.test(printed))
    throw new StepFailure('dev did not stop in order: no "stopping (SIGINT)" … "stopped" at the end', printed);
  if (/TypeError|^\s+at /m.test(printed)) throw new StepFailure('an error or stack trace on the way out', printed);
  if (existsSync(path.join(clone, '.data', 'dev.json')))
    throw new StepFailure('.data/dev.json is still there after dev stopped', printed);
  const left = processesUnder([clone, ...(clusterDir ? [clusterDir] : [])]);
  if (left.length > 0) throw new StepFailure('processes left running', left.join('\n'));
  const ports = devPorts(state);
  const taken: string[] = [];
  for (const { what, port } of ports) if (await accepts(port)) taken.push(`${what} ${port}`);
  if (taken.length > 0) throw new StepFailure(`ports still answering: ${taken.join(', ')}`, printed);
  const npmEnd = npm.code === 0 ? 'npm exit 0' : 'npm ended by the SIGINT (sh re-raises it)';
  return { note: `dev stopped in order; ${npmEnd}; ${ports.length} ports free`, output: printed };
}
