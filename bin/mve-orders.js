#!/usr/bin/env node
// Runs the CLI compiled into dist/ (npm run build, which `npm ci` runs) when it is up to date: it starts in a
// fraction of a second. Otherwise (no build, a failed one, or a source edited since) it runs the TypeScript
// sources through tsx, which compiles them at each start (seconds), so that an edit takes effect at once,
// without a build step to forget.
import { readFileSync, statSync } from 'node:fs';

const project = new URL('../', import.meta.url);

/**
 * dist/build.json (scripts/build.ts) names the files the build read and when it started: the build is current
 * while none has changed since. A file changed in the second the build started counts as changed, for file
 * systems that keep whole seconds only.
 */
function compiledIsCurrent() {
  try {
    const { startedAt, sources } = JSON.parse(readFileSync(new URL('dist/build.json', project), 'utf8'));
    const since = Math.floor(startedAt / 1000) * 1000;
    return sources.every((file) => statSync(new URL(file, project)).mtimeMs < since);
  } catch {
    return false;
  }
}

if (compiledIsCurrent()) {
  await import('../dist/bin/cli.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./cli.ts');
}
