/**
 * `npm run build` (and `npm ci` and `npm link`, through `prepare`): compiles the app (the CLI, and through it the
 * worker, the HTTP API and dev; the workflow code the worker bundles) into dist/, so that bin/mve-orders.js starts
 * without compiling TypeScript.
 *
 * A build that is current (none of the files it read has changed since: bin/build-stamp.js, the launcher's own
 * test) is left as it is, in a fraction of a second, without loading the compiler; `-- --force` compiles anyway.
 * Otherwise it compiles incrementally: a few seconds when little changed, half a minute and more from nothing.
 *
 * Last, it writes dist/build.json: when the build started and the files it read. bin/mve-orders.js runs the
 * compiled CLI only while none of them has changed since; a failed build writes none, and the CLI then runs from
 * the sources.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type ts from 'typescript';
import { BUILD_STAMP, compiledIsCurrent } from '../bin/build-stamp.js';

const PROJECT = fileURLToPath(new URL('../', import.meta.url));
const CONFIG = path.join(PROJECT, 'tsconfig.build.json');
const STAMP = path.join(PROJECT, BUILD_STAMP);
/** Files that shape the output without being compiled themselves: the settings, and the dependencies' versions. */
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

async function main(): Promise<number> {
  let force: boolean;
  try {
    force = parseArgs({ options: { force: { type: 'boolean', default: false } } }).values.force;
  } catch (error) {
    process.stderr.write(`build: ${(error as Error).message}\nusage: npm run build [-- --force]\n`);
    return 2;
  }
  if (!force && compiledIsCurrent(pathToFileURL(PROJECT))) {
    const stamp = JSON.parse(await readFile(STAMP, 'utf8')) as { startedAt: number; sources: string[] };
    process.stdout.write(
      `dist/ is up to date: none of its ${stamp.sources.length} files has changed since its build at ${new Date(stamp.startedAt).toISOString()} (npm run build -- --force compiles anyway)\n`,
    );
    return 0;
  }
  const startedAt = Date.now();
  await rm(STAMP, { force: true });
  // Loaded only when there is something to compile: the compiler alone takes a noticeable part of a second to load.
  const { default: typescript } = await import('typescript');
  const program = compile(typescript);
  if (!program) return 1;
  const sources = program
    .getSourceFiles()
    .map((file) => path.relative(PROJECT, file.fileName))
    .filter((file) => !file.startsWith('..') && !file.split(path.sep).includes('node_modules'));
  const stamp = { startedAt, sources: [...SETTINGS, ...sources].map(toPosix).sort() };
  await writeFile(`${STAMP}.tmp`, `${JSON.stringify(stamp, null, 1)}\n`);
  await rename(`${STAMP}.tmp`, STAMP);
  process.stdout.write(
    `built dist/ from ${sources.length} files in ${((Date.now() - startedAt) / 1000).toFixed(1)} s\n`,
  );
  return 0;
}

/** tsc -p tsconfig.build.json, incrementally; undefined (the errors printed) when it finds any. */
function compile(typescript: typeof ts): ts.Program | undefined {
  const reportAll = (diagnostics: readonly ts.Diagnostic[]) =>
    process.stderr.write(
      typescript.formatDiagnosticsWithColorAndContext(diagnostics, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => PROJECT,
        getNewLine: () => '\n',
      }),
    );
  const config = typescript.getParsedCommandLineOfConfigFile(CONFIG, undefined, {
    ...typescript.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => reportAll([diagnostic]),
  });
  if (!config) return undefined;
  const builder = typescript.createIncrementalProgram({
    rootNames: config.fileNames,
    options: config.options,
    configFileParsingDiagnostics: config.errors,
    projectReferences: config.projectReferences,
  });
  // Checked before the emit, as tsc does, so that the build info it writes keeps the result for the next build.
  const diagnostics = [
    ...builder.getConfigFileParsingDiagnostics(),
    ...builder.getOptionsDiagnostics(),
    ...builder.getGlobalDiagnostics(),
    ...builder.getSyntacticDiagnostics(),
    ...builder.getSemanticDiagnostics(),
  ];
  diagnostics.push(...builder.emit().diagnostics);
  if (diagnostics.length === 0) return builder.getProgram();
  reportAll(diagnostics);
  return undefined;
}

function toPosix(file: string): string {
  return file.split(path.sep).join('/');
}

process.exitCode = await main();
