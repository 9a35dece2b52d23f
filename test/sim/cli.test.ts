import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';

const BIN = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));

interface RunningSim {
  child: ChildProcess;
  output: string;
  /** The MVE_* variables the simulator printed for its primary key. */
  env: Record<string, string>;
  stop(): Promise<string>;
}

/** Starts `mve-orders sim --port 0` as a user would and waits for its banner. */
async function startSimCli(extraArgs: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<RunningSim> {
  const child = spawn(process.execPath, [BIN, 'sim', '--port', '0', ...extraArgs], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sim did not start:\n${output}`)), 90_000);
    const check = () => {
      if (output.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.once('exit', () => reject(new Error(`sim exited:\n${output}`)));
  });
  const exports = /export (MVE_[^\n]*)\\\n\s+(MVE_[^\n]*)/.exec(output);
  const vars = Object.fromEntries(
    `${exports![1]} ${exports![2]}`
      .trim()
      .split(/\s+/)
      .map((pair) => pair.split('=') as [string, string]),
  );
  return {
    child,
    get output() {
      return output;
    },
    env: vars,
    async stop() {
      child.kill('SIGINT');
      await once(child, 'exit');
      return output;
    },
  };
}

// Serial: each test spawns the real binary (node + tsx), which is heavy on a shared 2-core machine.
test.serial(
  'mve-orders sim serves the API; mve-orders locations --mve-available lists usable locations from it',
  async (t) => {
    const sim = await startSimCli(['--seed', '11']);
    t.teardown(() => void sim.child.kill('SIGKILL'));
    t.regex(sim.output, /token URL http:\/\/127\.0\.0\.1:\d+\/staging\/oauth2\/token/);
    t.is(sim.env['MVE_ENVIRONMENT'], 'staging');

    const table = await runCli(['locations', '--mve-available'], { env: sim.env });
    t.is(table.code, 0, table.stderr);
    t.regex(table.stdout, /^ID\s+NAME\s+METRO\s+COUNTRY\s+MARKET\s+STATUS\s+MVE ZONES/);
    t.regex(table.stdout, /\d+ of 320 locations, at http:\/\/127\.0\.0\.1:\d+\/staging \(MVE_API_BASE_URL\)\n$/);
    t.notRegex(table.stdout, /Decommissioned|Restricted|Deployment/);

    const json = await runCli(['locations', '--mve-available', '--country', 'japan', '--json'], { env: sim.env });
    const locations = JSON.parse(json.stdout) as Array<{ status: string; address: { country: string } }>;
    t.true(locations.length > 0);
    t.true(locations.every((location) => location.status === 'Active' && location.address.country === 'Japan'));

    const images = await runCli(['images', '--vendor', 'meraki'], { env: sim.env });
    t.is(images.code, 0, images.stderr);
    t.regex(images.stdout, /Meraki\s+vMX/);
    t.regex(images.stdout, /3 images, at http:\/\/127\.0\.0\.1:\d+\/staging \(MVE_API_BASE_URL\)\n$/);

    t.regex(await sim.stop(), /simulator stopped/);
  },
);

test.serial('mve-orders sim accepts the key given in MVE_CLIENT_ID / MVE_CLIENT_SECRET', async (t) => {
  const sim = await startSimCli(['--token-ttl', '300'], {
    MVE_CLIENT_ID: 'my-key',
    MVE_CLIENT_SECRET: 'my-secret-123',
  });
  t.teardown(() => void sim.child.kill('SIGKILL'));
  t.is(sim.env['MVE_CLIENT_ID'], 'my-key');
  t.is(sim.env['MVE_CLIENT_SECRET'], 'my-secret-123');
  const result = await runCli(['images', '--json'], { env: sim.env });
  t.is(result.code, 0, result.stderr);
  t.true((JSON.parse(result.stdout) as unknown[]).length >= 17);
  await sim.stop();
});

test.serial('mve-orders sim takes the provisioning times and the product read mode', async (t) => {
  const sim = await startSimCli(['--configured-after', '100', '--live-after', '250', '--product-read', 'not-allowed']);
  t.teardown(() => void sim.child.kill('SIGKILL'));
  t.regex(sim.output, /Bought products: CONFIGURED after 100 ms, LIVE after 250 ms; product read not-allowed/);
  const url = /listening on (http:\/\/\S+)/.exec(sim.output)![1];
  const state = (await (await fetch(`${url}/_sim/state`)).json()) as Record<string, unknown>;
  t.like(state, { provisioning: { configuredAfterMs: 100, liveAfterMs: 250 }, productRead: 'not-allowed' });
  await sim.stop();
});

test.serial('sim refuses bad options with a message naming them', async (t) => {
  const result = await runCli(['sim', '--port', 'abc']);
  t.not(result.code, 0);
  t.regex(result.stderr, /--port must be a whole number/);
  const backwards = await runCli(['sim', '--port', '0', '--configured-after', '500', '--live-after', '100']);
  t.not(backwards.code, 0);
  t.regex(backwards.stderr, /--live-after \(100\) must be at least --configured-after \(500\)/);
  const mode = await runCli(['sim', '--port', '0', '--product-read', 'sometimes']);
  t.not(mode.code, 0);
  t.regex(mode.stderr, /--product-read.*sometimes.*offered, not-found, not-allowed/s);
});

test.serial('locations without configuration (and no dev running) says which variables to set', async (t) => {
  const result = await runCli(['locations'], {
    env: {
      MVE_API_BASE_URL: '',
      MVE_AUTH_URL: '',
      MVE_ENVIRONMENT: '',
      MVE_CLIENT_ID: '',
      MVE_CLIENT_SECRET: '',
      MVE_DATA_DIR: join(tmpdir(), 'mve-sim-cli-no-dev'),
    },
  });
  t.is(result.code, 2);
  t.regex(result.stderr, /no mve-orders dev is running \(start one with `npm start`: its simulator is listed\)/);
  for (const name of ['MVE_API_BASE_URL', 'MVE_AUTH_URL', 'MVE_ENVIRONMENT', 'MVE_CLIENT_ID', 'MVE_CLIENT_SECRET']) {
    t.regex(result.stderr, new RegExp(name));
  }
});

test.serial('locations against a server that is not there names the URL', async (t) => {
  const result = await runCli(['locations'], {
    env: {
      MVE_API_BASE_URL: 'http://127.0.0.1:9/staging',
      MVE_AUTH_URL: 'http://127.0.0.1:9/staging',
      MVE_ENVIRONMENT: 'staging',
      MVE_CLIENT_ID: 'k',
      MVE_CLIENT_SECRET: 's',
    },
  });
  t.not(result.code, 0);
  t.regex(result.stderr, /could not connect to http:\/\/127\.0\.0\.1:9/);
});

test.serial('a bad key gives a clear message naming the environment and the variables', async (t) => {
  const sim = await startSimCli();
  t.teardown(() => void sim.child.kill('SIGKILL'));
  const result = await runCli(['locations'], { env: { ...sim.env, MVE_CLIENT_SECRET: 'wrong-secret' } });
  t.not(result.code, 0);
  t.regex(result.stderr, /staging token endpoint .* refused API key "sim-staging-admin"/);
  t.regex(result.stderr, /MVE_CLIENT_ID and MVE_CLIENT_SECRET/);
  t.false(result.stderr.includes('wrong-secret'));
  await sim.stop();
});
