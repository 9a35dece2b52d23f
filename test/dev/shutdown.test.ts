import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import test, { type ExecutionContext } from 'ava';
import { removeDevFolder } from './child.js';

// How `mve-orders dev` stops, as a terminal stops it: Ctrl-C signals the terminal's whole foreground process group.
// Each test starts the real dev, in a process group of its own (as a shell starts it), on free ports and this file's
// temporary data folder (initdb once; the tests take turns), then stops it one way or another.

const BIN = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));
const START_MS = 240_000; // bundling the workflows and a cold initdb, on a loaded machine
const STOP_MS = 60_000;

let root: string;
let dataDir: string;

test.before(async () => {
  root = await mkdtemp(join(tmpdir(), 'mve-dev-shutdown-'));
  await chmod(root, 0o711); // as root, PostgreSQL runs as the postgres account, which must pass through
  dataDir = join(root, 'data');
});

test.after.always(async () => {
  if (root) await removeDevFolder(root);
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From the first signal sent to the exit. */
  ms: number;
}

/** `mve-orders dev` as the leader of its own process group, read as it runs. */
async function startDev() {
  const args = ['dev', '--temporal-port', '0', '--temporal-ui-port', '0', '--sim-port', '0', '--http-port', '0'];
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, MVE_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let signalledAt = 0;
  const exited = new Promise<Exit>((done) =>
    child.once('exit', (code, signal) => done({ code, signal, ms: Date.now() - signalledAt })),
  );
  const pid = child.pid!;
  const killGroup = () => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const describe = () => `stdout:\n${stdout}\nstderr:\n${stderr}`;

  const deadline = Date.now() + START_MS;
  while (!/^ready: /m.test(stdout)) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      killGroup();
      throw new Error(`dev did not start\n${describe()}`);
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 200));
  }
  const shown = /\(embedded; data in ([^)]+)\)/.exec(stdout)?.[1];
  if (!shown) throw new Error(`dev did not say where its cluster is\n${describe()}`);
  const clusterDir = resolve(shown);

  return {
    stdout: () => stdout,
    stderr: () => stderr,
    describe,
    clusterDir,
    httpUrl: () => (JSON.parse(readFileSync(join(dataDir, 'dev.json'), 'utf8')) as { http: { url: string } }).http.url,
    postmasterPid: () => Number(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
    /** As a terminal's Ctrl-C does: every process of the group. */
    signalGroup(signal: NodeJS.Signals) {
      signalledAt ||= Date.now();
      process.kill(-pid, signal);
    },
    /** As `kill <pid>` does: dev alone. */
    signalMain(signal: NodeJS.Signals) {
      signalledAt ||= Date.now();
      process.kill(pid, signal);
    },
    markSignalled() {
      signalledAt ||= Date.now();
    },
    /** Its exit; past the time allowed, the group is killed and the test fails. */
    async exit(): Promise<Exit> {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          killGroup();
          reject(new Error(`dev did not exit within ${STOP_MS} ms\n${describe()}`));
        }, STOP_MS);
      });
      try {
        return await Promise.race([exited, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    /** For finally: nothing of this dev survives a failed test. */
    killGroup,
  };
}

/**
 * PostgreSQL servers of the cluster folder: `…/bin/postgres -D <folder> …` (its other processes rename themselves,
 * and end with it).
 */
function postgresProcesses(clusterDir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // ended meanwhile
    }
    if (args[0]?.endsWith('/postgres') && args.includes(clusterDir)) found.push(`${entry}: ${args.join(' ')}`);
  }
  return found;
}

async function waitForNoPostgres(clusterDir: string, ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  let left = postgresProcesses(clusterDir);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    left = postgresProcesses(clusterDir);
  }
  return left;
}

/** The lines from `stopping (<why>)` to the end, in order, PostgreSQL's as given. */
function shutdownReport(why: string, postgresLine: string): RegExp {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const steps = [
    'state file removed',
    'HTTP API closed',
    'worker stopped',
    'order events no longer followed',
    'API simulator closed',
    'Temporal closed',
  ];
  return new RegExp(
    `\\nstopping \\(${escape(why)}\\)\\n` +
      steps.map((step) => ` {2}${escape(step)}\\n`).join('') +
      ` {2}${postgresLine}\\nstopped\\n$`,
  );
}

/** No crash: no TypeError, no stack trace, no Node.js banner of an uncaught error. */
function assertNoCrash(t: ExecutionContext, stderr: string): void {
  t.notRegex(stderr, /TypeError/);
  t.notRegex(stderr, /^\s+at /m, 'no stack trace');
  t.notRegex(stderr, /^Node\.js v\d+/m);
}

test.serial(
  'Ctrl-C (SIGINT to the whole process group) stops dev in order and exits 0, leaving no PostgreSQL',
  async (t) => {
    t.timeout(START_MS + 2 * STOP_MS);
    const dev = await startDev();
    try {
      dev.signalGroup('SIGINT');
      const exit = await dev.exit();
      t.deepEqual([exit.code, exit.signal], [0, null], dev.describe());
      assertNoCrash(t, dev.stderr());
      t.regex(dev.stdout(), shutdownReport('SIGINT', 'PostgreSQL stopped'));
      t.deepEqual(postgresProcesses(dev.clusterDir), [], 'PostgreSQL ended before dev did');
      t.false(existsSync(join(dev.clusterDir, 'postmaster.pid')), 'a clean shutdown removes its lock file');
      t.false(existsSync(join(dataDir, 'dev.json')), 'the state file is removed');
    } finally {
      dev.killGroup();
    }
  },
);

test.serial('SIGTERM to dev alone stops it in order and exits 0, leaving no PostgreSQL', async (t) => {
  t.timeout(START_MS + 2 * STOP_MS);
  const dev = await startDev();
  try {
    dev.signalMain('SIGTERM');
    const exit = await dev.exit();
    t.deepEqual([exit.code, exit.signal], [0, null], dev.describe());
    assertNoCrash(t, dev.stderr());
    t.regex(dev.stdout(), shutdownReport('SIGTERM', 'PostgreSQL stopped'));
    t.deepEqual(postgresProcesses(dev.clusterDir), []);
  } finally {
    dev.killGroup();
  }
});

// What every Ctrl-C did while PostgreSQL shared dev's process group: the server shuts down (fast shutdown, its
// connections cut) while dev still has connections open. dev must still stop in order and exit 0, in good time.
test.serial('SIGINT to dev and to PostgreSQL at once: still in order, exit 0, no TypeError', async (t) => {
  t.timeout(START_MS + 2 * STOP_MS);
  const dev = await startDev();
  try {
    const postmaster = dev.postmasterPid();
    dev.signalGroup('SIGINT');
    process.kill(postmaster, 'SIGINT');
    const exit = await dev.exit();
    t.deepEqual([exit.code, exit.signal], [0, null], dev.describe());
    assertNoCrash(t, dev.stderr());
    t.regex(dev.stdout(), shutdownReport('SIGINT', 'PostgreSQL (stopped|had already stopped \\(exit code 0\\))'));
    t.notRegex(dev.stdout(), /did not stop within/);
    t.true(exit.ms < 20_000, `stopped in ${exit.ms} ms`);
    t.deepEqual(postgresProcesses(dev.clusterDir), []);
  } finally {
    dev.killGroup();
  }
});

// A client in the middle of a request holds the HTTP API's close open (up to its limit): the second Ctrl-C comes while
// dev is still stopping.
test.serial(
  'a second Ctrl-C while stopping exits at once, saying so, and PostgreSQL does not outlive dev',
  async (t) => {
    t.timeout(START_MS + 2 * STOP_MS);
    const dev = await startDev();
    const http = new URL(dev.httpUrl());
    const stalled = net.connect(Number(http.port), http.hostname);
    stalled.on('error', () => {});
    try {
      await new Promise<void>((connected) => stalled.once('connect', () => connected()));
      stalled.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // headers never finished
      dev.signalGroup('SIGINT');
      const deadline = Date.now() + STOP_MS;
      while (!/^stopping \(SIGINT\)/m.test(dev.stdout()) && Date.now() < deadline)
        await new Promise((resolveWait) => setTimeout(resolveWait, 50));
      await new Promise((resolveWait) => setTimeout(resolveWait, 300));
      t.notRegex(dev.stdout(), /^stopped$/m, 'still stopping when the second Ctrl-C comes');
      dev.signalGroup('SIGINT');
      const exit = await dev.exit();
      t.deepEqual([exit.code, exit.signal], [130, null], dev.describe());
      t.regex(
        dev.stderr(),
        /SIGINT while stopping: exiting now, without finishing the shutdown \(PostgreSQL stops as dev exits\)/,
      );
      assertNoCrash(t, dev.stderr());
      t.deepEqual(await waitForNoPostgres(dev.clusterDir, 15_000), [], 'its supervisor stops PostgreSQL as dev exits');
    } finally {
      stalled.destroy();
      dev.killGroup();
    }
  },
);

// Last: the cluster is left to recover from a crash, which the next start on this folder would do.
test.serial('PostgreSQL killed while dev runs: dev says so, stops in order, exits 1', async (t) => {
  t.timeout(START_MS + 2 * STOP_MS);
  const dev = await startDev();
  try {
    dev.markSignalled();
    process.kill(dev.postmasterPid(), 'SIGKILL');
    const exit = await dev.exit();
    t.deepEqual([exit.code, exit.signal], [1, null], dev.describe());
    assertNoCrash(t, dev.stderr());
    t.regex(
      dev.stdout(),
      shutdownReport(
        'PostgreSQL ended on its own (signal SIGKILL)',
        'PostgreSQL had already stopped \\(signal SIGKILL\\)',
      ),
    );
    t.deepEqual(postgresProcesses(dev.clusterDir), []);
  } finally {
    dev.killGroup();
  }
});
