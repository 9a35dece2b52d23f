/**
 * The layer check (`npm run lint:layers`, .dependency-cruiser.cjs) refuses an import that runs up a layer or out of a
 * standalone room. Run on a scratch tree with the project's own rules, so the project is never edited to show it.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, symlink, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** Runs the layer check on a scratch tree of `files` (path → source); answers its exit code and output. */
async function checkLayers(files: Record<string, string>): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mve-layers-'));
  try {
    await copyFile(path.join(ROOT, '.dependency-cruiser.cjs'), path.join(dir, '.dependency-cruiser.cjs'));
    // The project's packages, for an import of one to resolve (and be told a dependency from a devDependency).
    await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
    );
    for (const [name, source] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), source);
    }
    const rooms = [...new Set(Object.keys(files).map((name) => name.split('/')[0]))];
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [DEPCRUISE, '--config', '.dependency-cruiser.cjs', ...rooms],
        { cwd: dir },
      );
      return { code: 0, output: stdout };
    } catch (error) {
      const failed = error as { code: number; stdout: string };
      return { code: failed.code, output: failed.stdout };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('an import down the layers passes', async (t) => {
  const { code, output } = await checkLayers({
    'domain/index.ts': 'export const rule = 1;\n',
    'workflows/order.ts': "import { rule } from '../domain/index.js';\nexport const order = rule;\n",
  });
  t.is(code, 0, output);
});

test('the domain importing the CLI fails the check, naming the rule and the import', async (t) => {
  const { code, output } = await checkLayers({
    'client/cli/main.ts': 'export const main = 1;\n',
    'domain/rule.ts': "import { main } from '../client/cli/main.js';\nexport const rule = main;\n",
  });
  t.not(code, 0);
  t.regex(output, /layer-domain: domain\/rule\.ts → client\/cli\/main\.ts/);
});

test('the API importing the console (a room above it) fails the check', async (t) => {
  const { code, output } = await checkLayers({
    'client/console/index.ts': 'export const page = 1;\n',
    'client/http/server.ts': "import { page } from '../console/index.js';\nexport const server = page;\n",
  });
  t.not(code, 0);
  t.regex(output, /layer-client-http: client\/http\/server\.ts → client\/console\/index\.ts/);
});

test('the simulator importing the domain fails the check: it must read the spec for itself', async (t) => {
  const { code, output } = await checkLayers({
    'domain/rule.ts': 'export const rule = 1;\n',
    'tooling/sim/orders.ts': "import { rule } from '../../domain/rule.js';\nexport const check = rule;\n",
  });
  t.not(code, 0);
  t.regex(output, /simulator-stands-alone: tooling\/sim\/orders\.ts → domain\/rule\.ts/);
});

test('two files that import each other fail the check', async (t) => {
  const { code, output } = await checkLayers({
    'domain/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
    'domain/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
  });
  t.not(code, 0);
  t.regex(output, /no-circles/);
});

test('two files that import each other only for types fail the check too', async (t) => {
  const { code, output } = await checkLayers({
    'domain/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
    'domain/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
  });
  t.not(code, 0);
  t.regex(output, /no-circles: domain\/a\.ts →\s+domain\/b\.ts/);
});

test('a room importing a domain module around its public face fails the check; through the face passes', async (t) => {
  const domain = {
    'domain/lifecycle/states.ts': 'export const STATES = [];\n',
    'domain/lifecycle/index.ts': "export { STATES } from './states.js';\n",
    'domain/index.ts': "export { STATES } from './lifecycle/index.js';\n",
  };
  const around = await checkLayers({
    ...domain,
    'workflows/order.ts': "import { STATES } from '../domain/lifecycle/states.js';\nexport const order = STATES;\n",
  });
  t.not(around.code, 0);
  t.regex(around.output, /domain-through-its-public-face: workflows\/order\.ts → domain\/lifecycle\/states\.ts/);
  const through = await checkLayers({
    ...domain,
    'workflows/order.ts': "import { STATES } from '../domain/lifecycle/index.js';\nexport const order = STATES;\n",
    'infra/store.ts': "import { STATES } from '../domain/index.js';\nexport const store = STATES;\n",
  });
  t.is(through.code, 0, through.output);
});

test('the product, up to the mve-orders command, importing development tooling fails the check', async (t) => {
  const tooling = { 'tooling/commands/dev.ts': 'export const registerDevCommand = 1;\n' };
  for (const file of ['client/server/start.ts', 'client/cli/commands.ts']) {
    const { code, output } = await checkLayers({
      ...tooling,
      [file]:
        "import { registerDevCommand } from '../../tooling/commands/dev.js';\nexport const x = registerDevCommand;\n",
    });
    t.not(code, 0, file);
    t.regex(output, new RegExp(`product-never-imports-development-tooling: ${file} → tooling/commands/dev\\.ts`));
  }
  const composed = await checkLayers({
    ...tooling,
    'bin/cli.ts':
      "import { registerDevCommand } from '../tooling/commands/dev.js';\nexport const x = registerDevCommand;\n",
  });
  t.is(composed.code, 0, composed.output);
});

test('the embedded PostgreSQL runner importing the app fails the check: it stands alone', async (t) => {
  const { code, output } = await checkLayers({
    'infra/log.ts': 'export const log = 1;\n',
    'tooling/postgres/index.ts': "import { log } from '../../infra/log.js';\nexport const start = log;\n",
  });
  t.not(code, 0);
  t.regex(output, /postgres-runner-stands-alone: tooling\/postgres\/index\.ts → infra\/log\.ts/);
});

test('the product importing a devDependency fails the check; a dependency passes', async (t) => {
  const manifest = {
    'package.json': JSON.stringify({ dependencies: { zod: '*' }, devDependencies: { 'fast-check': '*' } }),
  };
  const dev = await checkLayers({
    ...manifest,
    'client/cli/serve.ts': "import fc from 'fast-check';\nexport const serve = fc;\n",
  });
  t.not(dev.code, 0);
  t.regex(dev.output, /product-runs-on-runtime-dependencies: client\/cli\/serve\.ts → \S*node_modules\/fast-check\//);
  const runtime = await checkLayers({
    ...manifest,
    'client/cli/serve.ts': "import { z } from 'zod';\nexport const serve = z;\n",
  });
  t.is(runtime.code, 0, runtime.output);
});
