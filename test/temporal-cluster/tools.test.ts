/**
 * The installer of the cluster's parts, against a fake go: a shell script first on PATH that answers as go does,
 * records each call (its arguments, GOTOOLCHAIN, GOBIN, its folder) and "builds" by writing the two binaries into GOBIN.
 * What it does midway waits for a file the test writes, so each test decides when the build goes on.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import {
  installClusterTools,
  installedClusterTools,
  TEMPORAL_SERVER_VERSION,
} from '../../tooling/temporal/cluster/tools.js';
import { waitFor } from '../helpers/wait.js';

const PROJECT = fileURLToPath(new URL('../../', import.meta.url));
const COMMAND = join(PROJECT, 'tooling/temporal/cluster/install-command.ts');
const SERVER = 'go.temporal.io/server';

const roots: string[] = [];
test.after.always(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

interface FakeGo {
  root: string;
  env: NodeJS.ProcessEnv;
  /** Written by the test, it lets the fake's build go on past its midway point. */
  release: string;
  /** Written by the fake when its build is midway: one binary in GOBIN, the other not yet. */
  midway: string;
  /** Each call: `<arguments> | GOTOOLCHAIN=… GOBIN=… PWD=…`. */
  calls: () => Promise<string[]>;
  tools: string;
  cache: string;
}

/**
 * A folder with a fake `go`, the only one on PATH, and a tools folder of its own; `cases` gives the branches of its
 * `case "$1 $2"` (what it does for `mod download`, `install -v`, `env GOPROXY`).
 */
async function fakeGo(cases: (fake: FakeGo) => Promise<string> | string): Promise<FakeGo> {
  const root = await mkdtemp(join(tmpdir(), 'mve-cluster-tools-'));
  roots.push(root);
  const bin = join(root, 'bin');
  await mkdir(bin);
  const callsFile = join(root, 'calls');
  const tools = join(root, 'tools');
  const fake: FakeGo = {
    root,
    env: { PATH: `${bin}:/usr/bin:/bin`, MVE_TOOLS_DIR: tools },
    release: join(root, 'release'),
    midway: join(root, 'midway'),
    calls: async () => (existsSync(callsFile) ? (await readFile(callsFile, 'utf8')).trimEnd().split('\n') : []),
    tools,
    cache: join(tools, 'temporal-cluster'),
  };
  const script = `#!/bin/bash
printf '%s | GOTOOLCHAIN=%s GOBIN=%s PWD=%s\\n' "$*" "$GOTOOLCHAIN" "$GOBIN" "$PWD" >> '${callsFile}'
# Waits (30 s at most) for the test to write the release file.
await_release() { for _ in $(seq 600); do [ -f '${fake.release}' ] && return 0; sleep 0.05; done; exit 9; }
case "$1 $2" in
${await cases(fake)}
  *) echo "fake go: unexpected call: $*" >&2; exit 3 ;;
esac
`;
  await writeFile(join(bin, 'go'), script);
  await chmod(join(bin, 'go'), 0o755);
  return fake;
}

/** The module as go's cache holds it: the schema folder, its files read-only. */
async function moduleFolder(root: string): Promise<string> {
  const dir = join(root, 'module');
  for (const part of ['temporal', 'visibility']) {
    const folder = join(dir, 'schema/postgresql/v12', part, 'versioned/v1.0');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'schema.sql'), `CREATE TABLE ${part}_v1 (id BIGINT);\n`);
    await chmod(join(folder, 'schema.sql'), 0o444);
  }
  return dir;
}

/**
 * A go that builds: package lines, modules downloaded, the server binary, a pause until released, the schema tool; then
 * the Web UI server, its own module, in a go install of its own.
 */
function buildingGo(): Promise<FakeGo> {
  return fakeGo(
    async (fake) => `
  "mod download")
    echo 'go: downloading go.temporal.io/server v1.32.2' >&2
    printf '{\\n\\t"Path": "go.temporal.io/server",\\n\\t"Version": "v1.32.2",\\n\\t"Dir": "%s"\\n}\\n' '${await moduleFolder(fake.root)}' ;;
  "install -v")
    case "$3" in github.com/temporalio/ui-server/*)
      printf 'github.com/labstack/echo/v4\\ngithub.com/temporalio/ui-server/v2/cmd/server\\n' >&2
      printf '#!/bin/sh\\necho temporal-ui-server\\n' > "$GOBIN/server" && chmod +x "$GOBIN/server"
      exit 0 ;;
    esac
    printf 'go.uber.org/zap\\ngo.temporal.io/server/common/log\\ngo: downloading github.com/urfave/cli/v2 v2.27.7\\ngo.temporal.io/server/common\\n' >&2
    printf '#!/bin/sh\\necho temporal-server\\n' > "$GOBIN/server" && chmod +x "$GOBIN/server"
    touch '${fake.midway}'
    await_release
    printf '#!/bin/sh\\necho temporal-sql-tool\\n' > "$GOBIN/sql" && chmod +x "$GOBIN/sql"
    printf 'go.temporal.io/server/cmd/tools/sql\\ngo.temporal.io/server/cmd/server\\n' >&2 ;;`,
  );
}

/** The install command, run as npm run cluster:install runs it. */
function runCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', COMMAND, ...args], { cwd: PROJECT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

test('without go, the error names Go, how to install it on Debian, and that npm start needs none of it', async (t) => {
  const fake = await fakeGo(() => '');
  const env = { ...fake.env, PATH: join(fake.root, 'nothing-here') };
  const error = await t.throwsAsync(installClusterTools({ log: () => {}, env }));
  t.regex(error.message, /no go command found on PATH \(nor GO set\)/);
  t.regex(error.message, /built from Temporal's Go module \(go\.temporal\.io\/server v1\.32\.2\)/);
  t.regex(error.message, /Any Go 1\.21 or newer works: it fetches go1\.27\.3 itself through the Go module proxy/);
  t.regex(error.message, /apt-get install golang-go/);
  t.regex(error.message, /start-dev \(npm start\) needs none of this/);
  t.false(existsSync(fake.tools), 'nothing written');
  const named = await t.throwsAsync(installClusterTools({ log: () => {}, env: { ...env, GO: '/opt/no/go' } }));
  t.regex(named.message, /GO is \/opt\/no\/go, which is not a go command/);
});

test('a module proxy out of reach: the error says GOPROXY, that the build needs the proxy, and what go said', async (t) => {
  const fake = await fakeGo(
    () => `
  "env GOPROXY") echo 'https://proxy.example.test,direct' ;;
  "mod download")
    echo 'go: downloading go1.27.3 (linux/amd64)' >&2
    echo 'go: download go1.27.3: golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64.zip: Get "https://proxy.example.test/golang.org/toolchain/@v/v0.0.1-go1.27.3.linux-amd64.zip": dial tcp: lookup proxy.example.test: no such host' >&2
    exit 1 ;;`,
  );
  const error = await t.throwsAsync(installClusterTools({ log: () => {}, env: fake.env }));
  t.regex(error.message, /could not fetch from the Go module proxy \(GOPROXY=https:\/\/proxy\.example\.test,direct\)/);
  t.regex(error.message, /go fetches it, its dependencies and the Go toolchain go1\.27\.3 through the module proxy/);
  t.regex(error.message, /\n {2}go: download go1\.27\.3: .*dial tcp: lookup proxy\.example\.test: no such host$/);
  const calls = await fake.calls();
  t.is(calls.length, 2, calls.join('\n'));
  t.regex(calls[0], /^mod download -json go\.temporal\.io\/server@v1\.32\.2 \| GOTOOLCHAIN=go1\.27\.3 /);
  t.regex(calls[1], /^env GOPROXY \| GOTOOLCHAIN=local /, 'asked of the go at hand, not the toolchain it lacks');
  t.deepEqual(await readdir(fake.cache), [], 'no cache, no build folder left');
});

test('any other failure: the exit status and go’s last lines, the package names left out', async (t) => {
  const fake = await fakeGo(
    async (fake) => `
  "mod download") printf '{"Path": "go.temporal.io/server", "Dir": "%s"}\\n' '${await moduleFolder(fake.root)}' ;;
  "install -v")
    printf 'go.uber.org/zap\\n# go.temporal.io/server/common\\ncommon/clock.go:12:3: undefined: nowish\\ngo.uber.org/multierr\\n' >&2
    exit 2 ;;`,
  );
  const error = await t.throwsAsync(installClusterTools({ log: () => {}, env: fake.env }));
  t.is(
    error.message,
    "temporal cluster: go install failed (exit status 2); go's last lines:\n" +
      '  # go.temporal.io/server/common\n  common/clock.go:12:3: undefined: nowish',
  );
  t.deepEqual(await readdir(fake.cache), []);
});

test('a build is laid out in the cache with its record, says how it goes, and is reused without go', async (t) => {
  const fake = await buildingGo();
  const lines: string[] = [];
  const log = (line: string) => {
    lines.push(line);
    // The build goes on once a progress line has counted the three packages compiled so far.
    if (line.includes(': 3 packages compiled (and 2 modules downloaded), ')) void writeFile(fake.release, '');
  };
  const tools = await installClusterTools({ log, env: fake.env, progressEveryMs: 20 });

  const folder = join(fake.cache, TEMPORAL_SERVER_VERSION);
  t.deepEqual(tools, {
    version: 'v1.32.2',
    server: join(folder, 'bin/temporal-server'),
    sqlTool: join(folder, 'bin/temporal-sql-tool'),
    uiServer: join(folder, 'bin/temporal-ui-server'),
    schemaDir: join(folder, 'schema/postgresql/v12'),
  });
  t.is(spawnSync(tools.server, { encoding: 'utf8' }).stdout, 'temporal-server\n');
  t.is(spawnSync(tools.sqlTool, { encoding: 'utf8' }).stdout, 'temporal-sql-tool\n');
  t.is(spawnSync(tools.uiServer, { encoding: 'utf8' }).stdout, 'temporal-ui-server\n');
  const schema = join(tools.schemaDir, 'visibility/versioned/v1.0/schema.sql');
  t.is(await readFile(schema, 'utf8'), 'CREATE TABLE visibility_v1 (id BIGINT);\n');
  t.is((await stat(schema)).mode & 0o200, 0o200, 'the copy is the user’s to change and remove');
  t.deepEqual((await readdir(folder)).sort(), ['bin', 'installed.json', 'schema']);
  t.deepEqual((await readdir(join(folder, 'bin'))).sort(), [
    'temporal-server',
    'temporal-sql-tool',
    'temporal-ui-server',
  ]);
  const record = JSON.parse(await readFile(join(folder, 'installed.json'), 'utf8')) as Record<string, unknown>;
  t.like(record, { version: 'v1.32.2', go: 'go1.27.3' });
  t.true(typeof record['buildSeconds'] === 'number' && record['buildSeconds'] >= 0);
  t.true(Math.abs(Date.parse(String(record['installedAt'])) - Date.now()) < 60_000);
  t.deepEqual(await readdir(fake.cache), ['v1.32.2'], 'the build folder renamed into place');

  const calls = await fake.calls();
  t.is(calls.length, 3, calls.join('\n'));
  const [download, install, ui] = calls.map((call) => call.split(' | '));
  t.is(download[0], 'mod download -json go.temporal.io/server@v1.32.2');
  t.is(install[0], `install -v ${SERVER}/cmd/server@v1.32.2 ${SERVER}/cmd/tools/sql@v1.32.2`);
  t.is(ui[0], 'install -v github.com/temporalio/ui-server/v2/cmd/server@v2.54.1');
  for (const call of calls) t.regex(call, / \| GOTOOLCHAIN=go1\.27\.3 GOBIN=\S+\/v1\.32\.2\.partial-\d+\/bin PWD=/);
  t.false(install[1].split('PWD=')[1].startsWith(PROJECT), 'go runs outside any module');

  t.regex(
    lines[0],
    /^temporal cluster: building Temporal's server v1\.32\.2, its schema tool and Web UI server v2\.54\.1 with Go go1\.27\.3/,
  );
  t.true(lines[0].includes(`into ${folder}`), lines[0]);
  t.regex(lines.at(-1)!, new RegExp(`^temporal cluster: built v1\\.32\\.2 in \\d+ s: ${folder}$`));
  const progress = lines.filter((line) => line.includes(' so far '));
  t.true(progress.length > 0);
  t.regex(
    progress.at(-1)!,
    /^temporal cluster: building server v1\.32\.2, its schema tool and Web UI server v2\.54\.1 with Go go1\.27\.3: \d+ packages? compiled.*, \d+ s so far \(the first build takes 6 to 20 minutes on 2 cores; later ones reuse Go's build cache\)$/,
  );

  const again: string[] = [];
  t.deepEqual(await installClusterTools({ log: (line) => again.push(line), env: fake.env }), tools);
  t.deepEqual(installedClusterTools(fake.env), tools);
  t.is((await fake.calls()).length, 3, 'no go call at all the second time');
  t.deepEqual(again, [`temporal cluster: v1.32.2 is already built in ${folder}`]);
});

test('a build killed midway leaves no cache; the next one replaces what it left', async (t) => {
  const fake = await buildingGo();
  const child = spawn(process.execPath, ['--import', 'tsx', COMMAND], {
    cwd: PROJECT,
    env: fake.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // a group of its own, so one SIGKILL takes the installer and its go
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await waitFor(() => Promise.resolve(existsSync(fake.midway) ? true : undefined), 30_000, 'the build midway');
  const [left] = await readdir(fake.cache);
  t.regex(left, /^v1\.32\.2\.partial-\d+$/);
  t.deepEqual(await readdir(join(fake.cache, left, 'bin')), ['server'], 'half built');
  process.kill(-child.pid!, 'SIGKILL');
  await exited;

  t.is(installedClusterTools(fake.env), undefined);
  t.deepEqual(await readdir(fake.cache), [left], 'only the build folder, which is no cache');
  await writeFile(fake.release, '');
  const tools = await installClusterTools({ log: () => {}, env: fake.env });
  t.deepEqual(await readdir(fake.cache), ['v1.32.2'], 'what the killed build left is gone');
  t.deepEqual(installedClusterTools(fake.env), tools);
});

test('the command prints its usage, the paths when built, and a failure without its stack', async (t) => {
  const fake = await buildingGo();
  const help = await runCommand(['--help'], fake.env);
  t.is(help.status, 0);
  t.regex(help.stdout, /^usage: npm run cluster:install/);
  await writeFile(fake.release, '');
  const built = await runCommand([], fake.env);
  t.is(built.status, 0, built.stderr);
  t.true(
    built.stdout.includes(`temporal-ui-server: ${join(fake.cache, 'v1.32.2/bin/temporal-ui-server')}\n`),
    built.stdout,
  );
  const failed = await runCommand([], { ...fake.env, PATH: '/nowhere', MVE_TOOLS_DIR: join(fake.root, 'other') });
  t.is(failed.status, 1);
  t.regex(failed.stderr, /^temporal cluster: no go command found on PATH/);
  t.false(failed.stderr.includes('    at '), 'the message, no stack');
});
