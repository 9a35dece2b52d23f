/**
 * `npm run bench`: every benchmark, each in its own process (so one's garbage and JIT state do not colour
 * the next), one after the other. Figures are medians and ratios; these machines are noisy, so compare
 * runs made on the same machine.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** From the project's root. */
const BENCHMARKS = ['bench/api.ts', 'bench/orders.ts', 'bench/api-http.ts', 'bench/cli-start.ts'];

let failed = 0;
for (const file of BENCHMARKS) {
  process.stdout.write(`\n== ${file} ==\n`);
  const result = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(new URL(`../${file}`, import.meta.url))],
    {
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
