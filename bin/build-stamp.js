// Whether the build in dist/ is current: what bin/mve-orders.js asks before it runs the compiled CLI, and
// scripts/build.ts before it compiles (a current build is not compiled again). Plain JavaScript, so that the
// launcher reads it without compiling anything.
import { readFileSync, statSync } from 'node:fs';

/** dist/build.json, written last by scripts/build.ts. */
export const BUILD_STAMP = 'dist/build.json';

/**
 * dist/build.json names the files the build read and when it started: the build is current while none has changed
 * since (nor gone) and the compiled CLI is there. A file changed in the second the build started counts as
 * changed, for file systems that keep whole seconds only. `project`: the project's folder, as a URL ending in `/`.
 *
 * @param {URL} project
 * @returns {boolean}
 */
export function compiledIsCurrent(project) {
  try {
    const { startedAt, sources } = JSON.parse(readFileSync(new URL(BUILD_STAMP, project), 'utf8'));
    const since = Math.floor(startedAt / 1000) * 1000;
    statSync(new URL('dist/bin/cli.js', project));
    return sources.every((file) => statSync(new URL(file, project)).mtimeMs < since);
  } catch {
    return false;
  }
}
