import { chmod, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import anyTest, { type TestFn } from 'ava';
import type { DevState } from '../../client/cli/dev-state.js';
import { runCli } from '../helpers/cli.js';
import { removeDevFolder, spawnCli, type CliChild } from '../dev/child.js';

// What a newcomer meets with `npm start` running: `mve-orders dev` as a child process (Temporal's own server, free
// ports, a data folder of its own), the CLI finding it through the state file alone. The dev terminal's output is
// test/dev/terminal.test.ts's.

const test = anyTest as TestFn<{ dev: CliChild; env: NodeJS.ProcessEnv; root: string; state: DevState }>;

/** None of the ordering API's variables: whatever the catalog commands list comes from the running dev. */
const NO_API_VARIABLES = {
  MVE_API_BASE_URL: '',
  MVE_AUTH_URL: '',
  MVE_ENVIRONMENT: '',
  MVE_CLIENT_ID: '',
  MVE_CLIENT_SECRET: '',
};

test.before(async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'mve-cli-dev-'));
  t.context.root = root;
  // As root, PostgreSQL runs as the postgres account, which must be able to pass through to its folder.
  await chmod(root, 0o711);
  const dataDir = join(root, 'data');
  t.context.env = { MVE_DATA_DIR: dataDir, ...NO_API_VARIABLES };
  const ports = ['--temporal-port', '0', '--temporal-ui-port', '0', '--sim-port', '0', '--http-port', '0'];
  t.context.dev = spawnCli(['dev', ...ports], t.context.env);
  await t.context.dev.waitForOutput(/^ready: /m, 240_000);
  t.context.state = JSON.parse(await readFile(join(dataDir, 'dev.json'), 'utf8')) as DevState;
});

test.after.always(async (t) => {
  await t.context.dev?.stop('SIGTERM', 60_000);
  if (t.context.root) await removeDevFolder(t.context.root);
});

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

test.serial("locations and images list the running dev's simulator, and say which API they listed", async (t) => {
  const { env, state } = t.context;
  const simulator = `the simulator of the running mve-orders dev \\(${escaped(state.api.baseUrl)}\\)`;

  const locations = await runCli(['locations', '--mve-available'], { env });
  t.is(locations.code, 0, locations.stderr);
  t.regex(locations.stdout, /^ID\s+NAME\s+METRO/);
  t.regex(locations.stdout, new RegExp(`\\d+ of 320 locations, at ${simulator}\\n$`));

  const images = await runCli(['images', '--vendor', 'fortinet'], { env });
  t.is(images.code, 0, images.stderr);
  t.regex(images.stdout, /Fortinet\s+FortiGate-VM/);
  t.regex(images.stdout, new RegExp(`\\d+ images, at ${simulator}\\n$`));

  const json = await runCli(['images', '--json'], { env });
  t.is(json.code, 0, json.stderr);
  t.true((JSON.parse(json.stdout) as unknown[]).length >= 17, 'the JSON is the image groups alone');

  // MVE_API_BASE_URL set: the API of the variables, named as such, even with a dev running.
  const key = state.api.catalogKey!;
  const variables = {
    MVE_API_BASE_URL: state.api.baseUrl,
    MVE_AUTH_URL: key.authUrl,
    MVE_ENVIRONMENT: 'staging',
    MVE_CLIENT_ID: key.clientId,
    MVE_CLIENT_SECRET: key.clientSecret,
  };
  const explicit = await runCli(['images'], { env: { ...env, ...variables } });
  t.is(explicit.code, 0, explicit.stderr);
  t.regex(explicit.stdout, new RegExp(`\\d+ images, at ${escaped(state.api.baseUrl)} \\(MVE_API_BASE_URL\\)\\n$`));
});
