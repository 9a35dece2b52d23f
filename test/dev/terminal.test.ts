import { chmod, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import type { DevState } from '../../client/cli/dev-state.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { removeDevFolder, spawnCli, type CliChild } from './child.js';

// The dev terminal as a newcomer watches it: one line per order event that needs a person, naming the order and
// what to do next, read from the records; a requester's mistake is such a line, never a stack trace; anything that may
// be a bug keeps the Temporal SDK's warning with its stack. `mve-orders dev` runs as a child process on free ports.

interface Context {
  dev: CliChild;
  env: NodeJS.ProcessEnv;
  root: string;
  state: DevState;
}

const test = anyTest as TestFn<Context>;
const START_MS = 240_000;
const PORTS = ['--temporal-port', '0', '--temporal-ui-port', '0', '--sim-port', '0', '--http-port', '0'];
/** None of the ordering API's variables: dev runs its simulator. */
const NO_API_VARIABLES = {
  MVE_API_BASE_URL: '',
  MVE_AUTH_URL: '',
  MVE_ENVIRONMENT: '',
  MVE_CLIENT_ID: '',
  MVE_CLIENT_SECRET: '',
};
const EXAMPLE = fileURLToPath(new URL('../../examples/k09-license-file-firewall.json', import.meta.url));

async function startDev(env: NodeJS.ProcessEnv): Promise<CliChild> {
  const dev = spawnCli(['dev', ...PORTS], env);
  await dev.waitForOutput(/^ready: /m, START_MS).catch(async (error: unknown) => {
    await dev.stop('SIGKILL', 10_000);
    throw error;
  });
  return dev;
}

test.before(async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'mve-dev-terminal-'));
  t.context.root = root;
  // As root, PostgreSQL runs as the postgres account, which must be able to pass through to its folder.
  await chmod(root, 0o711);
  t.context.env = { MVE_DATA_DIR: join(root, 'data'), ...NO_API_VARIABLES };
  t.context.dev = await startDev(t.context.env);
  t.context.state = await readState(t.context.env);
});

test.after.always(async (t) => {
  await t.context.dev?.stop('SIGTERM', 60_000);
  if (t.context.root) await removeDevFolder(t.context.root);
});

async function readState(env: NodeJS.ProcessEnv): Promise<DevState> {
  return JSON.parse(await readFile(join(env['MVE_DATA_DIR']!, 'dev.json'), 'utf8')) as DevState;
}

const terminal = (dev: CliChild) => `${dev.stdout()}${dev.stderr()}`;
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Submits the K09 example as alice, changed by `changes`; its order id. */
async function submit(t: ExecutionContext<Context>, changes: Record<string, unknown>): Promise<string> {
  const request = JSON.parse(await readFile(EXAMPLE, 'utf8')) as Record<string, unknown>;
  const submitted = await runCli(['submit', '-', '--as', 'alice', '--json'], {
    env: t.context.env,
    stdin: JSON.stringify({ ...request, ...changes }),
  });
  t.is(submitted.code, 0, submitted.stderr);
  return (JSON.parse(submitted.stdout) as { orderId: string }).orderId;
}

/** The terminal line about the order moving to `state`, once it is printed. */
function lineAbout(dev: CliChild, orderId: string, state: string, since = 0): Promise<string> {
  const pattern = new RegExp(`^\\[order\\] ${escaped(orderId)} ${state}\\b.*$`, 'm');
  return waitFor(
    () => Promise.resolve(pattern.exec(terminal(dev).slice(since))?.[0]),
    120_000,
    `the ${state} line of ${orderId}`,
  );
}

/** The `npx mve-orders …` command a line names, as arguments of the CLI. */
function commandIn(line: string, name: string): string[] {
  const command = new RegExp(`\`npx mve-orders (${name} [^\`]+)\``).exec(line)?.[1];
  if (!command) throw new Error(`no \`npx mve-orders ${name}\` in: ${line}`);
  return command.split(' ');
}

async function fault(state: DevState, body: object): Promise<void> {
  const answer = await fetch(`${state.api.simulatorUrl}/_sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (answer.status !== 200) throw new Error(`the simulator refused the fault: ${answer.status}`);
}

/** A location of the simulator, Active, whose MVE zones offer at most 16 vCPU: MVE 32/128 is too big for it. */
async function smallLocation(env: NodeJS.ProcessEnv): Promise<{ id: number }> {
  const listed = await runCli(['locations', '--mve-available', '--json'], { env });
  type Zone = { mveAvailable?: boolean; mveMaxCpuCoreCount?: number | null } | null;
  const locations = JSON.parse(listed.stdout) as Array<{ id: number; diversityZones?: Record<string, Zone> }>;
  const small = locations.find((location) =>
    Object.values(location.diversityZones ?? {})
      .filter((zone) => zone?.mveAvailable)
      .every((zone) => (zone?.mveMaxCpuCoreCount ?? 0) <= 16),
  );
  if (!small) throw new Error(`no location of at most 16 vCPU:\n${listed.stdout}`);
  return { id: small.id };
}

test.serial(
  'a size the location cannot offer is one line naming the order, the reason and the next step, with no stack trace',
  async (t) => {
    const { dev, env, state } = t.context;
    const location = await smallLocation(env);
    const before = terminal(dev).length;
    const orderId = await submit(t, { ticketId: 'TERM-SIZE', size: 'MVE 32/128', location });

    const line = await lineAbout(dev, orderId, 'FAILED', before);
    t.regex(line, /: POST \/v3\/networkdesign\/validate \(staging\) was rejected \(400\): .*needs 32 vCPU/);
    t.true(
      line.includes(
        `. Next: it goes no further: see why at ${state.http.url}/orders/${orderId} (or \`npx mve-orders status ${orderId} --as olga\`)`,
      ),
      line,
    );
    // Told once, on that line: no worker line, no SDK warning, no stack trace.
    const output = terminal(dev).slice(before);
    t.is(output.split('needs 32 vCPU').length - 1, 1, output);
    t.notRegex(output, /\[WARN\]/);
    t.notRegex(output, /^\s+at /m, 'no stack trace');
    // The status command the line names works as printed.
    const status = await runCli(commandIn(line, 'status'), { env });
    t.is(status.code, 0, status.stderr);
    t.regex(status.stdout, /FAILED/);
  },
);

test.serial('an unknown location is one line too; a failed API call keeps the SDK warning and its stack', async (t) => {
  const { dev, state } = t.context;
  const before = terminal(dev).length;
  const refusedId = await submit(t, { ticketId: 'TERM-ATLANTIS', location: { metro: 'Atlantis', market: 'AU' } });
  const line = await lineAbout(dev, refusedId, 'FAILED', before);
  t.true(
    line.startsWith(
      `[order] ${refusedId} FAILED: the catalog cannot serve this order: location: no location matches metro "Atlantis", market "AU". Next: `,
    ),
    line,
  );
  t.is(terminal(dev).slice(before).split('Atlantis').length - 1, 1, 'the refusal is told once, on that line');

  // Not a refusal: the simulator answers the next validation 503, and the worker tries again; the order is bought.
  await fault(state, { kind: 'error', endpoint: 'validate', status: 503 });
  const boughtId = await submit(t, { ticketId: 'TERM-503' });
  await waitFor(
    async () => {
      const status = await runCli(['status', boughtId, '--as', 'alice', '--json'], { env: t.context.env });
      return /"state": ?"(BOUGHT|PROVISIONING|LIVE)"/.test(status.stdout) ? true : undefined;
    },
    120_000,
    `${boughtId} bought`,
  );
  const output = terminal(dev).slice(before);
  const warnings = output.split(/(?=^\S+ \[WARN\] )/m).filter((entry) => entry.includes('[WARN] Activity failed'));
  t.is(warnings.length, 1, output);
  t.regex(warnings[0], /activityType: 'validateOrder'/);
  t.regex(warnings[0], /503/);
  t.regex(warnings[0], /\n\s+at /, 'with its stack trace');
  t.notRegex(output, new RegExp(`^\\[order\\] ${escaped(boughtId)} `, 'm'), 'a bought order needs nobody');
});

test.serial(
  'an order awaiting approval and then an uncertain buy are a line each, whose commands settle them as printed',
  async (t) => {
    const { dev, env, state } = t.context;
    const before = terminal(dev).length;
    // MVE 16/64 is quoted 3236.40 AUD, above the staging auto-approve line.
    const orderId = await submit(t, { ticketId: 'TERM-UNCERTAIN', size: 'MVE 16/64' });
    const waiting = await lineAbout(dev, orderId, 'AWAITING_APPROVAL', before);
    t.regex(waiting, /: 3236\.4 AUD needs the "team" tier .*\. Next: 1 approval from finance-approver/);
    t.true(waiting.includes(`decide at ${state.http.url}/orders/${orderId}`), waiting);

    // The buy's connection is cut after the provider acted: nobody knows whether it bought.
    await fault(state, { kind: 'apply-then-drop', endpoint: 'buy' });
    const approve = commandIn(waiting, 'approve');
    t.deepEqual(approve, ['approve', orderId, '--rate', '3236.4', '--currency', 'AUD', '--as', 'fiona']);
    const approved = await runCli(approve, { env });
    t.is(approved.code, 0, approved.stderr);

    const uncertain = await lineAbout(dev, orderId, 'BUY_UNCERTAIN', before);
    t.regex(
      uncertain,
      /: the buy may or may not have been carried out: .*\. Next: ops find out from the provider's portal/,
    );
    t.true(uncertain.includes(`${state.api.simulatorUrl}/_sim/state`), uncertain);
    t.true(uncertain.includes(`settle it at ${state.http.url}/orders/${orderId}`), uncertain);
    // As the line says: the product the simulator created, then the resolve-buy command it names.
    const simState = (await (await fetch(`${state.api.simulatorUrl}/_sim/state`)).json()) as {
      products: Array<{ technicalServiceUid: string; serviceName: string }>;
    };
    // The product's name at the provider carries the order id.
    const product = simState.products.find((candidate) => candidate.serviceName.includes(orderId));
    t.truthy(product, JSON.stringify(simState.products));
    const resolve = commandIn(uncertain, 'resolve-buy');
    t.deepEqual(resolve, ['resolve-buy', orderId, '--as', 'olga', '--created', '<uid>']);
    const resolved = await runCli([...resolve.slice(0, -1), product!.technicalServiceUid], { env });
    t.is(resolved.code, 0, resolved.stderr);
    t.regex(resolved.stdout, /now BOUGHT/);
    const output = terminal(dev).slice(before);
    t.is(output.match(new RegExp(`^\\[order\\] ${escaped(orderId)} `, 'gm'))?.length, 2, output);
    t.notRegex(output, /^\s+at /m, 'no stack trace');
  },
);

test.serial('a burst of events is told a few lines a read, the rest counted, none lost or told twice', async (t) => {
  const { dev } = t.context;
  const before = terminal(dev).length;
  const tickets = Array.from({ length: 8 }, (_, index) => `TERM-BURST-${index}`);
  const orderIds = await Promise.all(tickets.map((ticketId) => submit(t, { ticketId, size: 'MVE 16/64' })));
  const told = () => {
    const output = terminal(dev).slice(before);
    const own = orderIds.filter((orderId) =>
      new RegExp(`^\\[order\\] ${escaped(orderId)} AWAITING_APPROVAL: `, 'm').test(output),
    );
    const counted = [...output.matchAll(/^\[order\] … and (\d+) more order events that need a person/gm)];
    return { output, own, counted: counted.reduce((sum, match) => sum + Number(match[1]), 0) };
  };
  const result = await waitFor(
    () => {
      const now = told();
      return Promise.resolve(now.own.length + now.counted >= orderIds.length ? now : undefined);
    },
    180_000,
    'every order of the burst told',
  );
  t.is(result.own.length + result.counted, orderIds.length, result.output);
  for (const orderId of result.own)
    t.is(result.output.split(`[order] ${orderId} `).length - 1, 1, `${orderId} told once`);
});

test.serial('an order still awaiting approval is told again at the next start, with since when', async (t) => {
  const { env } = t.context;
  const orderId = await submit(t, { ticketId: 'TERM-CARRIED', size: 'MVE 16/64' });
  const told = await lineAbout(t.context.dev, orderId, 'AWAITING_APPROVAL');

  t.is(await t.context.dev.stop('SIGINT', 60_000), 0, t.context.dev.stderr());
  t.regex(
    t.context.dev.stdout(),
    /\n {2}worker stopped\n {2}order events no longer followed\n {2}API simulator closed\n/,
  );
  t.context.dev = await startDev(env);
  const state = await readState(env);
  const again = await lineAbout(t.context.dev, orderId, 'AWAITING_APPROVAL since \\S+Z');
  t.is(
    again.replace(/ since \S+Z:/, ':').replaceAll(state.http.url, 'URL'),
    told.replaceAll(t.context.state.http.url, 'URL'),
  );
});
