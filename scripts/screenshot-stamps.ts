/**
 * Which code each screenshot in docs/screenshots shows, and a stamp of that code: `npm run screenshots` records, for
 * every image it takes, the stamp of the code it took it from (stamps.json beside the images), and
 * `npm run lint:screenshots` checks each image's stamp is the stamp of the code now. A stamp is of the files' contents,
 * not of when they were committed, so an image that comes out the same after a change is current once taken again.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT = fileURLToPath(new URL('../', import.meta.url));
export const FOLDER = 'docs/screenshots';
const STAMPS_FILE = path.join(PROJECT, FOLDER, 'stamps.json');

/**
 * The code each screenshot shows: the console's pages, or the codec server the Temporal Web UI decodes through and
 * the front dev puts before the Web UI.
 */
const SHOWS: Record<string, readonly string[]> = {
  'temporal-ui-decoded-order.png': ['client/http/routes/codec.ts', 'codec', 'tooling/dev/web-ui-front.ts'],
};
const CONSOLE = ['client/console'];

export type Stamps = Record<string, string>;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: PROJECT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }).trim();
}

/** The stamp of the code `image` shows, as the working tree holds it (committed or not, tracked or new). */
export function codeStamp(image: string): string {
  const files = git('ls-files', '--cached', '--others', '--exclude-standard', '--', ...(SHOWS[image] ?? CONSOLE))
    .split('\n')
    .filter(Boolean)
    .sort();
  const blobs = files.length > 0 ? git('hash-object', '--', ...files).split('\n') : [];
  const hash = createHash('sha256');
  files.forEach((file, at) => hash.update(`${file} ${blobs[at]}\n`));
  return hash.digest('hex').slice(0, 16);
}

export function readStamps(): Stamps {
  try {
    return JSON.parse(readFileSync(STAMPS_FILE, 'utf8')) as Stamps;
  } catch {
    return {};
  }
}

export function writeStamps(stamps: Stamps): void {
  const sorted = Object.fromEntries(Object.entries(stamps).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(STAMPS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
}
