/**
 * `npm run lint:screenshots` (part of `npm run lint`): each screenshot in docs/screenshots must have been taken from
 * the code it shows as it is now (./screenshot-stamps.ts), so a change to the console that does not come with
 * `npm run screenshots` fails here, naming the image and the command that brings it up to date.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { codeStamp, FOLDER, PROJECT, readStamps } from './screenshot-stamps.js';

function main(): number {
  const images = readdirSync(path.join(PROJECT, FOLDER)).filter((name) => name.endsWith('.png'));
  const stamps = readStamps();
  const stale = images.flatMap((image) => {
    const taken = stamps[image];
    if (taken === undefined) return [`${FOLDER}/${image} has no stamp: it was not taken by \`npm run screenshots\``];
    return taken === codeStamp(image) ? [] : [`${FOLDER}/${image} was taken from code that has changed since`];
  });
  if (stale.length === 0) {
    process.stdout.write(`screenshots: ${images.length} images, each taken from the code it shows as it is now\n`);
    return 0;
  }
  process.stderr.write(
    `${stale.map((line) => `screenshots: ${line}`).join('\n')}\nRun \`npm run screenshots\` and commit the images and ${FOLDER}/stamps.json.\n`,
  );
  return 1;
}

process.exitCode = main();
