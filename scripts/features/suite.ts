/**
 * Where the temporalio/features suite is, and which of its TypeScript features run here. A feature is a
 * folder under `features/` holding `feature.ts`; its `config.json` says what else it needs from the suite's
 * Go runner, and features that need what this runner does not provide are skipped with that reason.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface FeatureEntry {
  /** Relative to the suite's `features/`, with `/`: "activity/retry_on_error". */
  dir: string;
  /** Why it is not run here, when it is not. */
  skip?: string;
}

/** How to get the suite, printed when none is given or found. */
export const HOW_TO_GET_THE_SUITE = [
  'The temporalio/features suite is needed. Get a copy and point at it:',
  '  git clone https://github.com/temporalio/features /path/to/features     (a machine with internet)',
  '  npm run features -- --suite /path/to/features      or      FEATURES_DIR=/path/to/features npm run features',
  'Any copy of the repository works, e.g. from a bare mirror: git --git-dir=<mirror> archive HEAD | tar -x -C /path/to/features',
].join('\n');

export class SuiteNotFound extends Error {}

/** Checks that `root` is a features checkout: the TypeScript harness and the features folder. */
export function requireSuite(root: string | undefined): string {
  if (!root) throw new SuiteNotFound(`No suite given.\n${HOW_TO_GET_THE_SUITE}`);
  const absolute = path.resolve(root);
  for (const part of ['harness/ts/harness.ts', 'harness/ts/main.ts', 'features'])
    if (!existsSync(path.join(absolute, part)))
      throw new SuiteNotFound(
        `${absolute} is not a temporalio/features checkout (no ${part}).\n${HOW_TO_GET_THE_SUITE}`,
      );
  return absolute;
}

interface FeatureConfig {
  expectUnauthedProxyCount?: number;
  expectAuthedProxyCount?: number;
  runVariants?: { name: string }[];
}

/** What the suite's Go runner would have to set up for this feature, and this runner does not. */
function skipReason(config: FeatureConfig): string | undefined {
  if (config.expectUnauthedProxyCount || config.expectAuthedProxyCount)
    return "out of scope: needs the Go runner's HTTP CONNECT proxy and its count of proxied connections";
  if (config.runVariants?.length)
    return `out of scope: runs in variants (${config.runVariants.map((v) => v.name).join(', ')}) with server dynamic config and namespace capabilities set by the Go runner`;
  return undefined;
}

function readConfig(folder: string): FeatureConfig {
  const file = path.join(folder, 'config.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as FeatureConfig) : {};
}

/** Every TypeScript feature of the suite, sorted, those matching `filter` (a substring of the dir). */
export function listFeatures(root: string, filter?: string): FeatureEntry[] {
  const featuresRoot = path.join(root, 'features');
  const found: FeatureEntry[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(folder, entry.name));
      else if (entry.name === 'feature.ts') {
        const dir = path.relative(featuresRoot, folder).split(path.sep).join('/');
        const skip = skipReason(readConfig(folder));
        found.push(skip ? { dir, skip } : { dir });
      }
    }
  };
  walk(featuresRoot);
  return found.filter((feature) => !filter || feature.dir.includes(filter)).sort((a, b) => a.dir.localeCompare(b.dir));
}
