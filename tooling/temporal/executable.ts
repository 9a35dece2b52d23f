import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/** Whether `path` is a file this process may run. */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `command` as the shell would find it: a path as it is, a bare name in the first folder of PATH that has it. */
export function findOnPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  if (command.includes('/')) return isExecutableFile(resolve(command)) ? resolve(command) : undefined;
  return (env['PATH'] ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, command))
    .find(isExecutableFile);
}
