import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { runCli } from '../helpers/cli.js';
import { sydneyRequest } from '../helpers/orders.js';
import { removeDevFolder } from './child.js';

const BIN = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));
const START_MS = 240_000;

/**
 * `mve-orders dev` as the leader of its own process group, so one SIGKILL takes it (Temporal and PostgreSQL, in groups
 * of their own, are stopped by their supervisors as dev dies).
 */
function startDevGroup(env: NodeJS.ProcessEnv) {
  const args = ['dev', '--temporal-port', '0', '--temporal-ui-port', '0', '--sim-port', '0', '--http-port', '0'];
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async ready(): Promise<string> {
      const deadline = Date.now() + START_MS;
      while (!/^ready: /m.test(stdout)) {
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`dev did not start:\n${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return stdout;
    },
    async killGroup(signal: NodeJS.Signals): Promise<void> {
      process.kill(-child.pid!, signal);
      await exited;
    },
  };
}

// The whole stack killed at once — dev, its worker, its API, the simulator, and with them Temporal and PostgreSQL —
// with an order awaiting approval: started again on the same data, the order is still there, is approved and bought
// once, and the same ticket sent again buys nothing.
test('SIGKILL of the whole mve-orders dev process group loses no order, and the ticket re-sent buys nothing', async (t) => {
  t.timeout(10 * 60_000);
  const root = await mkdtemp(join(tmpdir(), 'mve-dev-kill-'));
  await chmod(root, 0o711); // as root, PostgreSQL runs as the postgres account, which must pass through
  const env = { MVE_DATA_DIR: join(root, 'data') };
  const cli = (args: string[], stdin?: string) => runCli(args, { env, ...(stdin !== undefined ? { stdin } : {}) });
  // The ticket system orders for dave, a person of dev's directory (a requester it does not know would be refused).
  const order = JSON.stringify(sydneyRequest('KILL-1', { size: 'MVE 16/64', requestedBy: 'dave' }));
  const first = startDevGroup(env);
  try {
    await first.ready();
    const submitted = await cli(['submit', '-', '--as', 'ticket-bot'], order);
    t.is(submitted.code, 0, submitted.stderr);
    for (
      let i = 0;
      i < 100 && !/AWAITING_APPROVAL/.test((await cli(['status', 'KILL-1', '--as', 'olga'])).stdout);
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await first.killGroup('SIGKILL');

    const second = startDevGroup(env);
    try {
      t.regex(await second.ready(), /kept across restarts: 1 open workflow run carried over/);
      const status = await cli(['status', 'KILL-1', '--as', 'olga']);
      t.regex(status.stdout, /KILL-1\s+AWAITING_APPROVAL/, status.stderr);
      const approved = await cli(['approve', 'KILL-1', '--rate', '3236.4', '--currency', 'AUD', '--as', 'fiona']);
      t.is(approved.code, 0, approved.stderr);
      let bought = '';
      // Bought, then followed until the simulator reports it LIVE.
      for (let i = 0; i < 300 && !/KILL-1\s+LIVE/.test(bought); i++) {
        bought = (await cli(['status', 'KILL-1', '--as', 'olga'])).stdout;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      t.regex(bought, /KILL-1\s+LIVE/);
      const resent = await cli(['submit', '-', '--as', 'ticket-bot'], order);
      t.is(resent.code, 0, resent.stderr);
      t.regex(resent.stdout, /already has this order/);
      const state = JSON.parse(await readFile(join(env.MVE_DATA_DIR, 'dev.json'), 'utf8')) as {
        api: { simulatorUrl: string };
      };
      const sim = (await (await fetch(`${state.api.simulatorUrl}/_sim/state`)).json()) as {
        products: Array<{ serviceName?: string }>;
      };
      t.is(
        sim.products.filter((product) => product.serviceName?.startsWith('Sydney FortiGate [')).length,
        1,
        'one product for the ticket',
      );
    } finally {
      // A second dev that already exited must not hide why (its stdout and stderr are in the failure above).
      await second.killGroup('SIGTERM').catch(() => undefined);
    }
  } finally {
    await first.killGroup('SIGKILL').catch(() => undefined);
    await removeDevFolder(root);
  }
});
