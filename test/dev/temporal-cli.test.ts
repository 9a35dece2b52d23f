/**
 * Which Temporal server `mve-orders dev` starts: the real one when the temporal CLI is found — MVE_TEMPORAL_CLI, then
 * the project's installed one, then PATH — else the embedded devserver, saying how to get the real one. The CLI
 * found is the installed one, linked into temporary folders.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import {
  chooseTemporal,
  findTemporalCli,
  INSTALL_TEMPORAL,
  PROJECT_TEMPORAL_CLI,
} from '../../client/dev/temporal-cli.js';

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

test('auto runs the real server when a CLI is found, and the embedded devserver otherwise, saying how to install', (t) => {
  t.deepEqual(chooseTemporal('auto', { PATH: join(root, 'path-bin') }, nowhere()), {
    kind: 'real',
    cli: { path: onPath, via: 'PATH' },
  });
  const embedded = chooseTemporal('auto', { PATH: '/usr/bin' }, nowhere());
  t.is(embedded.kind, 'embedded');
  t.regex(
    (embedded as { why: string }).why,
    /^no temporal CLI found \(`bash scripts\/install-python-tools\.sh` installs the real server\)$/,
  );
  t.deepEqual(chooseTemporal('embedded', { MVE_TEMPORAL_CLI: fromVariable }), {
    kind: 'embedded',
    why: 'chosen by --temporal embedded',
  });
});

test('--temporal real without a CLI, or MVE_TEMPORAL_CLI naming no program, is an error that says what to do', async (t) => {
  const missing = t.throws(() => chooseTemporal('real', { PATH: '/usr/bin' }, nowhere()))!;
  t.regex(missing.message, /^--temporal real: no temporal CLI found/);
  t.regex(missing.message, /Install the real server with `bash scripts\/install-python-tools\.sh`/);
  t.regex(missing.message, /or set MVE_TEMPORAL_CLI/);

  const notAProgram = join(root, 'notes.txt');
  await writeFile(notAProgram, 'not a program');
  await chmod(notAProgram, 0o644);
  for (const value of [notAProgram, join(root, 'absent'), root]) {
    const error = t.throws(() => chooseTemporal('auto', { MVE_TEMPORAL_CLI: value, PATH: join(root, 'path-bin') }))!;
    t.is(
      error.message,
      `MVE_TEMPORAL_CLI is ${value}, which is not an executable file: point it at the temporal CLI, or unset it`,
    );
  }
});
