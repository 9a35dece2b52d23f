/**
 * The temporal CLI `mve-orders dev` runs Temporal's server with: MVE_TEMPORAL_CLI, then the project's installed one,
 * then PATH; none is an error saying how to get one. The CLI found is the installed one, linked into temporary folders.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import {
  findTemporalCli,
  INSTALL_TEMPORAL,
  PROJECT_TEMPORAL_CLI,
  requireTemporalCli,
} from '../../tooling/dev/temporal-cli.js';

let root: string;
let onPath: string;
let fromVariable: string;
const nowhere = () => join(root, 'not-installed', 'temporal');

test.before(async () => {
  root = await mkdtemp(join(tmpdir(), 'mve-temporal-cli-'));
  const cli = PROJECT_TEMPORAL_CLI;
  if (!existsSync(cli))
    throw new Error(`${cli} is missing: install the real Temporal CLI with \`${INSTALL_TEMPORAL}\``);
  await mkdir(join(root, 'path-bin'));
  onPath = join(root, 'path-bin', 'temporal');
  await symlink(cli, onPath);
  fromVariable = join(root, 'chosen-temporal');
  await symlink(cli, fromVariable);
});

test.after.always(async () => {
  await rm(root, { recursive: true, force: true });
});

test('MVE_TEMPORAL_CLI comes first, then the project’s installed CLI, then PATH', (t) => {
  const path = `/usr/bin:${join(root, 'path-bin')}`;
  t.deepEqual(findTemporalCli({ MVE_TEMPORAL_CLI: fromVariable, PATH: path }), {
    path: fromVariable,
    via: 'MVE_TEMPORAL_CLI',
  });
  t.deepEqual(findTemporalCli({ PATH: path }), { path: PROJECT_TEMPORAL_CLI, via: "the project's tools" });
  t.deepEqual(findTemporalCli({ PATH: path }, nowhere()), { path: onPath, via: 'PATH' });
  t.is(findTemporalCli({ PATH: '/usr/bin' }, nowhere()), undefined);
});

test('without a CLI, dev stops with an error that says how to get one and how to do without', (t) => {
  t.deepEqual(requireTemporalCli({ PATH: join(root, 'path-bin') }, nowhere()), { path: onPath, via: 'PATH' });
  const missing = t.throws(() => requireTemporalCli({ PATH: '/usr/bin' }, nowhere()));
  t.regex(missing.message, /^no temporal CLI found: dev runs Temporal's own server \(`temporal server start-dev`\)/);
  t.true(missing.message.includes(`${nowhere()} is missing`), missing.message);
  t.regex(missing.message, /install it with `bash tooling\/install\/python-tools\.sh temporal`/);
  t.regex(missing.message, /apt-get install python3 python3-venv/);
  t.regex(missing.message, /or set MVE_TEMPORAL_CLI to a temporal CLI, or TEMPORAL_ADDRESS to a Temporal server/);
});

test('MVE_TEMPORAL_CLI naming no program is an error, not a reason to look elsewhere', async (t) => {
  const notAProgram = join(root, 'notes.txt');
  await writeFile(notAProgram, 'not a program');
  await chmod(notAProgram, 0o644);
  for (const value of [notAProgram, join(root, 'absent'), root]) {
    const error = t.throws(() => requireTemporalCli({ MVE_TEMPORAL_CLI: value, PATH: join(root, 'path-bin') }));
    t.is(
      error.message,
      `MVE_TEMPORAL_CLI is ${value}, which is not an executable file: point it at the temporal CLI, or unset it`,
    );
  }
});
