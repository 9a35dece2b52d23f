/**
 * Debian's chromium, driven by playwright-core (whose own browser download does not work here): the browser tests
 * (test/console) and the walkthrough of `npm start` launch it the same way. CHROMIUM_PATH points at another.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Headless chromium with a fresh temporary profile (playwright makes one per launch and removes it). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
