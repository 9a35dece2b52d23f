import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import anyTest, { type TestFn } from 'ava';

// The CLI starts in a fraction of a second because each command loads what it runs when it runs (the benchmark,
// `npm run bench:cli`, holds the figures). Here the real launcher runs with the engine's modules made impossible to
// load: Temporal's SDK, gRPC, PostgreSQL's driver, fastify, zod, pino, the HTTP client's fetch, and the app's rooms
// below the CLI. What must not need them still works; one static import of the engine in a command's module breaks it.

const test = anyTest as TestFn<{ folder: string; hooks: string }>;
const BIN = fileURLToPath(new URL('../../bin/mve-orders.js', import.meta.url));

const ENGINE_PACKAGES = ['@temporalio', '@grpc', 'postgres', 'fastify', 'zod', 'pino', 'node-fetch', 'typescript'];
const ENGINE_ROOMS = [
  'schemas',
  'codec',
  'domain',
  'infra',
  'workflows',
  'activities',
  'worker',
  'client/orders',
  'client/http',
  'client/console',
  'client/server',
  'client/http-client',
];

test.before(async (t) => {
  const folder = await mkdtemp(join(tmpdir(), 'mve-cli-start-up-'));
  const project = pathToFileURL(fileURLToPath(new URL('../../', import.meta.url))).href;
  const hooks = `
const packages = ${JSON.stringify(ENGINE_PACKAGES)};
const rooms = ${JSON.stringify(ENGINE_ROOMS)};
const project = ${JSON.stringify(project)};
function isEngine(url) {
  const inPackages = url.split('/node_modules/');
  if (inPackages.length > 1) return packages.some((name) => inPackages.at(-1).startsWith(name + '/'));
  if (!url.startsWith(project)) return false;
  const path = url.slice(project.length).replace(/^dist\\//, '');
  return rooms.some((room) => path.startsWith(room + '/'));
}
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (isEngine(resolved.url)) throw new Error('loaded an engine module: ' + resolved.url);
  return resolved;
}
`;
  await writeFile(join(folder, 'hooks.mjs'), hooks);
  await writeFile(
    join(folder, 'register.mjs'),
    `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`,
  );
  t.context = { folder, hooks: pathToFileURL(join(folder, 'register.mjs')).href };
});
test.after.always(async (t) => {
  await rm(t.context.folder, { recursive: true, force: true });
});

/** The launcher as users run it, with the engine's modules refused, in a data folder where no dev runs. */
function launch(hooks: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', hooks, BIN, ...args],
      { env: { ...process.env, MVE_DATA_DIR: join(tmpdir(), 'mve-cli-start-up-no-dev'), ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('the refusal is real: a command that runs the engine fails to load it', async (t) => {
  const migrate = await launch(t.context.hooks, ['migrate', '--database-url', 'postgres://127.0.0.1:9/none']);
  t.not(migrate.code, 0);
  t.regex(migrate.stderr, /loaded an engine module: .*infra\/db/);
});

test('the list of commands and each order command’s help load none of the engine', async (t) => {
  const top = await launch(t.context.hooks, ['--help']);
  t.is(top.code, 0, top.stderr);
  t.regex(top.stdout, /^Usage: mve-orders/);
  const commands = ['submit', 'status', 'history', 'approve', 'cancel', 'approvals', 'worker', 'serve', 'cluster'];
  for (const command of commands) {
    const help = await launch(t.context.hooks, [command, '--help']);
    t.is(help.code, 0, `${command} --help: ${help.stderr}`);
    t.regex(help.stdout, new RegExp(`^Usage: mve-orders ${command}`), command);
  }
});

test('status with nothing to talk to says what to start, without loading the engine', async (t) => {
  const status = await launch(t.context.hooks, ['status', 'CHG-1', '--as', 'alice']);
  t.is(status.code, 2, status.stderr);
  t.regex(status.stderr, /^mve-orders status: no API to talk to: .*start the engine with `npm start`/);
});
