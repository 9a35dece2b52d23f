/**
 * `npm run screenshots`: the console's browser tests that take the screenshots in docs/screenshots, then the stamp of
 * the code each image was taken from (./screenshot-stamps.ts), for the images this run wrote. Arguments go to ava.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { codeStamp, FOLDER, PROJECT, readStamps, writeStamps } from './screenshot-stamps.js';

const TESTS = [
  'test/console/browser.test.ts',
  'test/console/provisioning.test.ts',
  'test/console/commitments.test.ts',
  'test/console/decision-figures.test.ts',
  'test/console/temporal-ui.test.ts',
];

const started = Date.now();
const ava = spawnSync('npx', ['ava', ...TESTS, ...process.argv.slice(2)], {
  cwd: PROJECT,
  stdio: 'inherit',
  env: { ...process.env, CONSOLE_SCREENSHOTS: '1' },
});
if (ava.status !== 0) {
  process.stderr.write('screenshots: the tests failed, so no image is stamped\n');
  process.exit(ava.status ?? 1);
}
const folder = path.join(PROJECT, FOLDER);
const taken = readdirSync(folder).filter(
  (name) => name.endsWith('.png') && statSync(path.join(folder, name)).mtimeMs >= started,
);
const stamps = readStamps();
for (const image of taken) stamps[image] = codeStamp(image);
writeStamps(stamps);
process.stdout.write(`screenshots: ${taken.length} images taken and stamped in ${FOLDER}/stamps.json\n`);
