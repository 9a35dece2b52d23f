/**
 * `npm run lint:screenshots` (part of `npm run lint`): each screenshot in docs/screenshots must be no older than the
 * code it shows. The age of both is their last commit (a fresh clone gives every file the same modification time),
 * so a change to the console that does not come with `npm run screenshots` fails here, naming the image, the file
 * that changed after it and the command that brings it up to date.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT = fileURLToPath(new URL('../', import.meta.url));
const FOLDER = 'docs/screenshots';

/**
 * The commitments page shows the same fixed month every run, so its images do not change (and cannot be committed
 * anew) when another page does: it shows the console less the other pages (git pathspecs).
 */
const COMMITMENTS_PAGE = [
  'client/console',
  ...['order', 'inbox', 'ops', 'sign-in', 'budget-figures.ts'].map((other) => `:(exclude)client/console/${other}`),
];

/**
 * The code each screenshot shows: the console's pages, or the codec server the Temporal Web UI decodes through and
 * the front dev puts before the Web UI.
 */
const SHOWS: Record<string, readonly string[]> = {
  'temporal-ui-decoded-order.png': ['client/http/routes/codec.ts', 'codec', 'tooling/dev/web-ui-front.ts'],
  'commitments-desktop.png': COMMITMENTS_PAGE,
  'commitments-phone.png': COMMITMENTS_PAGE,
};
const CONSOLE = ['client/console'];

interface LastCommit {
  at: number;
  commit: string;
  file: string;
}

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: PROJECT, encoding: 'utf8' }).trim();
}

/** The newest commit touching any of `paths`, and the file of it that is among them. */
function lastCommit(paths: readonly string[]): LastCommit | undefined {
  const line = git('log', '-1', '--format=%ct %h', '--', ...paths);
  if (!line) return undefined;
  const [at, commit] = line.split(' ') as [string, string];
  const file = git('show', '--format=', '--name-only', commit, '--', ...paths).split('\n')[0] ?? paths[0];
  return { at: Number(at), commit, file };
}

function describe({ at, commit }: LastCommit): string {
  return `${commit}, ${new Date(at * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function main(): number {
  if (git('rev-parse', '--is-shallow-repository') === 'true') {
    process.stderr.write('check-screenshots: needs the whole history (this clone is shallow): git fetch --unshallow\n');
    return 2;
  }
  const images = readdirSync(path.join(PROJECT, FOLDER)).filter((name) => name.endsWith('.png'));
  const stale: string[] = [];
  for (const image of images) {
    const shot = lastCommit([`${FOLDER}/${image}`]);
    const code = lastCommit(SHOWS[image] ?? CONSOLE);
    if (!shot) stale.push(`${FOLDER}/${image} is not committed`);
    else if (code && code.at > shot.at) {
      stale.push(`${FOLDER}/${image} (${describe(shot)}) is older than ${code.file} (${describe(code)})`);
    }
  }
  if (stale.length === 0) {
    process.stdout.write(`screenshots: ${images.length} images, none older than the code they show\n`);
    return 0;
  }
  process.stderr.write(
    `${stale.map((line) => `screenshots: ${line}`).join('\n')}\nRun \`npm run screenshots\` and commit the images.\n`,
  );
  return 1;
}

process.exitCode = main();
