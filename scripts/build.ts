/**
 * `npm run build` (and `npm ci`, through `prepare`): compiles the app (the CLI, and through it the worker, the
 * HTTP API and dev; the workflow code the worker bundles) into dist/, so that
 * bin/mve-orders.js starts without compiling TypeScript. Incremental: a build with nothing changed takes a few
 * seconds.
 *
 * Last, it writes dist/build.json: when the build started and the files it read. bin/mve-orders.js runs the
 * compiled CLI only while none of them has changed since; a failed build writes none, and the CLI then runs from
 * the sources.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const PROJECT = fileURLToPath(new URL('../', import.meta.url));
const CONFIG = path.join(PROJECT, 'tsconfig.build.json');
const OUT = path.join(PROJECT, 'dist');
const STAMP = path.join(OUT, 'build.json');
/** Files that shape the output without being compiled themselves. */
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json'];

async function main(): Promise<number> {
  const startedAt = Date.now();
  await rm(STAMP, { force: true });
  const program = compile();
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
function compile(): ts.Program | undefined {
  const reportAll = (diagnostics: readonly ts.Diagnostic[]) =>
    process.stderr.write(
      ts.formatDiagnosticsWithColorAndContext(diagnostics, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => PROJECT,
        getNewLine: () => '\n',
      }),
    );
  const config = ts.getParsedCommandLineOfConfigFile(CONFIG, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => reportAll([diagnostic]),
  });
  if (!config) return undefined;
  const builder = ts.createIncrementalProgram({
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
