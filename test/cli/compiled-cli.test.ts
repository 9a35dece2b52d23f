import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import anyTest, { type TestFn } from 'ava';

// bin/mve-orders.js runs the build in dist/ only while it is current, and the sources otherwise, so that an edit
// takes effect at once. The real launcher in a project of two one-line CLIs: which one answers says which ran.

const test = anyTest as TestFn<{ project: string }>;
const PROJECT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE = 'bin/cli.ts';

test.beforeEach(async (t) => {
  const project = await mkdtemp(join(tmpdir(), 'mve-compiled-cli-'));
  t.context.project = project;
  await mkdir(join(project, 'bin'));
  for (const file of ['bin/mve-orders.js', 'bin/build-stamp.js']) await cp(join(PROJECT, file), join(project, file));
  await symlink(join(PROJECT, 'node_modules'), join(project, 'node_modules'));
  await writeFile(join(project, 'package.json'), '{ "type": "module" }\n');
  await writeFile(join(project, SOURCE), "const from: string = 'the sources';\nconsole.log(from);\n");
  await mkdir(join(project, 'dist/bin'), { recursive: true });
  await writeFile(join(project, 'dist/bin/cli.js'), "console.log('dist');\n");
  // Built a minute after the source was last written.
  const written = new Date(Date.now() - 120_000);
  await utimes(join(project, SOURCE), written, written);
  const build = { startedAt: written.getTime() + 60_000, sources: [SOURCE] };
  await writeFile(join(project, 'dist/build.json'), JSON.stringify(build));
});
test.afterEach.always(async (t) => {
  await rm(t.context.project, { recursive: true, force: true });
});

/** What the project's launcher prints. */
const launch = async (project: string) =>
  (await promisify(execFile)(process.execPath, [join(project, 'bin/mve-orders.js')])).stdout.trim();

test('a current build is what runs', async (t) => {
  t.is(await launch(t.context.project), 'dist');
});

test('a source written since the build runs from the sources', async (t) => {
  const now = new Date();
  await utimes(join(t.context.project, SOURCE), now, now);
  t.is(await launch(t.context.project), 'the sources');
});

test('a source the build read that is gone runs from the sources', async (t) => {
  await writeFile(
    join(t.context.project, 'dist/build.json'),
    JSON.stringify({ startedAt: Date.now(), sources: [SOURCE, 'client/cli/gone.ts'] }),
  );
  t.is(await launch(t.context.project), 'the sources');
});

test('no build, or a failed one (it leaves no dist/build.json), runs from the sources', async (t) => {
  await rm(join(t.context.project, 'dist/build.json'));
  t.is(await launch(t.context.project), 'the sources');
});
