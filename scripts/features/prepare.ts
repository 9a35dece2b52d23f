/**
 * Builds the suite's TypeScript harness and features the way its own Go runner does (sdkbuild: a program
 * folder with a tsconfig mapping `@temporalio/harness`, compiled to CommonJS in `tslib/`, run with
 * `tsconfig-paths/register`), except that the SDK is this project's installed @temporalio packages (never
 * installed from npm, see ./sdk-layout.ts), so the features run against the SDK the project ships with. The
 * harness's own npm dependencies the project lacks are installed from the registry into the program folder,
 * `tmp/features-program/` in the project (git ignores `tmp/`).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { clearSdkLayout, layOutSdk } from './sdk-layout.js';

const run = promisify(execFile);
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROGRAM_DIR = path.join(PROJECT_ROOT, 'tmp/features-program');

/** Installed from npm at the versions the suite's package.json asks for. */
const FROM_REGISTRY = ['commander', 'proto3-json-serializer', 'tsconfig-paths'];

export interface PreparedSuite {
  /** The program folder: node_modules, tsconfig.json, tslib/. */
  dir: string;
  /** The harness entry the Go runner starts: `node -r tsconfig-paths/register <main> --server … <dir>:<queue>`. */
  main: string;
  /** Type errors reported while compiling (the output is emitted regardless, as with the suite's build). */
  typeErrors: string[];
}

function suiteVersions(suite: string): Record<string, string> {
  const pkg = JSON.parse(readFileSync(path.join(suite, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const all = { ...pkg.devDependencies, ...pkg.dependencies };
  return Object.fromEntries(FROM_REGISTRY.map((name) => [name, all[name] ?? 'latest']));
}

/** npm install of the registry dependencies, skipped when the folder already has them at those ranges. */
async function installRegistryDeps(dir: string, suite: string, log: (line: string) => void): Promise<void> {
  const manifest = JSON.stringify(
    { name: 'features-program', private: true, dependencies: suiteVersions(suite) },
    null,
    2,
  );
  const manifestPath = path.join(dir, 'package.json');
  const installed = FROM_REGISTRY.every((name) => existsSync(path.join(dir, 'node_modules', name, 'package.json')));
  if (installed && existsSync(manifestPath) && readFileSync(manifestPath, 'utf8') === manifest) return;
  writeFileSync(manifestPath, manifest);
  clearSdkLayout(dir);
  log(`installing the harness's npm dependencies (${FROM_REGISTRY.join(', ')}) into ${dir}`);
  await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
}

/** sdkbuild's tsconfig, with absolute paths to the suite (the program folder need not live inside it). */
function writeTsconfig(dir: string, suite: string): void {
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      strict: true,
      esModuleInterop: true,
      skipLibCheck: true,
      module: 'commonjs',
      moduleResolution: 'node',
      resolveJsonModule: true,
      sourceMap: true,
      rootDir: suite,
      outDir: './tslib',
      baseUrl: '.',
      paths: {
        // compiled: the emitted harness (what tsconfig-paths resolves at run time); compiling: its source
        '@temporalio/harness': ['./tslib/harness/ts/harness.js', path.join(suite, 'harness/ts/harness.ts')],
        '*': [
          'node_modules/*',
          path.join(PROJECT_ROOT, 'node_modules/*'),
          path.join(PROJECT_ROOT, 'node_modules/@types/*'),
        ],
      },
      typeRoots: [path.join(PROJECT_ROOT, 'node_modules/@types')],
      types: ['node'],
    },
    include: [path.join(suite, 'features/**/*.ts'), path.join(suite, 'harness/ts/**/*.ts')],
  };
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
}

async function compile(dir: string): Promise<string[]> {
  rmSync(path.join(dir, 'tslib'), { recursive: true, force: true });
  const tsc = path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc');
  const output = await run(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], {
    cwd: dir,
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    (done) => done.stdout,
    (failed: { stdout?: string }) => failed.stdout ?? '',
  );
  return output.split('\n').filter((line) => line.includes(': error TS'));
}

export async function prepareSuite(suite: string, log: (line: string) => void): Promise<PreparedSuite> {
  const dir = PROGRAM_DIR;
  mkdirSync(dir, { recursive: true });
  await installRegistryDeps(dir, suite, log);
  // after npm, which prunes what it did not install
  layOutSdk(PROJECT_ROOT, dir);
  writeTsconfig(dir, suite);
  log(`compiling the harness and features of ${suite} into ${path.join(dir, 'tslib')}`);
  const typeErrors = await compile(dir);
  const main = path.join(dir, 'tslib/harness/ts/main.js');
  if (!existsSync(main))
    throw new Error(`compiling the suite produced no ${main}:\n${typeErrors.slice(0, 20).join('\n')}`);
  return { dir, main, typeErrors };
}
