import type { Command } from 'commander';
import type { CheckOptions } from './check-file.js';

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('Check an order request offline against every rule (exit 0 valid, 1 invalid, 2 unusable input)')
    .argument('<file>', 'the order request as JSON; "-" reads standard input')
    .option('--images <file>', 'also check against this images catalog (the body GET /v4/product/mve/images returns)')
    .option('--locations <file>', 'also check against this locations catalog (the body GET /v3/locations returns)')
    .option('--kind-map <file>', 'kind-map override file (default: the file named by MVE_KIND_MAP, if set)')
    .option('--json', 'print { ok, kind, errors, warnings } as JSON')
    .action(async (file: string, options: CheckOptions) => {
      const { checkRequestFile } = await import('./check-file.js');
      process.exitCode = await checkRequestFile(file, options);
    });
}
