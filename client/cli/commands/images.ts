import type { Command } from 'commander';
import type { ImageGroup } from '../../../schemas/index.js';
import { withConfiguredClient } from './catalog-api.js';
import { formatTable } from './table.js';

interface ImagesOptions {
  vendor?: string;
  product?: string;
  json?: boolean;
}

export function registerImagesCommand(program: Command): void {
  program
    .command('images')
    .description('List the MVE images of the configured API (MVE_* variables), one row per image')
    .option('--vendor <vendor>', 'only this vendor (case-insensitive)')
    .option('--product <product>', 'only this product (case-insensitive)')
    .option('--json', 'print the image groups as JSON')
    .action(async (options: ImagesOptions) => {
      const response = await withConfiguredClient((client) => client.listImages());
      const groups = response.data.mveImages.filter(
        (group) => matches(group.vendor, options.vendor) && matches(group.product, options.product),
      );
      process.stdout.write(options.json ? `${JSON.stringify(groups, null, 2)}\n` : imagesTable(groups));
    });
}

function matches(value: string, wanted: string | undefined): boolean {
  return wanted === undefined || value.trim().toLowerCase() === wanted.trim().toLowerCase();
}

function imagesTable(groups: ImageGroup[]): string {
  const rows = groups.flatMap((group) =>
    group.images.map((image) => [
      String(image.id),
      group.vendor,
      group.product,
      image.version,
      image.releaseImage ? 'yes' : 'no',
      image.availableSizes.join(', '),
    ]),
  );
  if (rows.length === 0) return 'No images match.\n';
  return formatTable(['ID', 'VENDOR', 'PRODUCT', 'VERSION', 'RELEASE', 'SIZES'], rows) + `${rows.length} images\n`;
}
