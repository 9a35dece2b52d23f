#!/usr/bin/env node
// Runs the CLI compiled into dist/ (npm run build, which `npm ci` runs) when it is up to date: it starts in a
// fraction of a second. Otherwise (no build, a failed one, or a source edited since) it runs the TypeScript
// sources through tsx, which compiles them at each start (seconds), so that an edit takes effect at once,
// without a build step to forget.
import { compiledIsCurrent } from './build-stamp.js';

if (compiledIsCurrent(new URL('../', import.meta.url))) {
  await import('../dist/bin/cli.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./cli.ts');
}
