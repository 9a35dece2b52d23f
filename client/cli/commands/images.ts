import type { Command } from 'commander';
import type { ImageGroup } from '../../../schemas/index.js';
import { withCatalogClient } from './catalog-api.js';
import { formatTable } from './table.js';

interface ImagesOptions {
  vendor?: string;
  product?: string;
  json?: boolean;
}

export function registerImagesCommand(program: Command): void {
  program
    .command('images')
    .description(
      "List the ordering API's MVE images, one row per image: the running dev's simulator, or the API of the MVE_* variables when MVE_API_BASE_URL is set",
    )
    .option('--vendor <vendor>', 'only this vendor (case-insensitive)')
    .option('--product <product>', 'only this product (case-insensitive)')
    .option('--json', 'print the image groups as JSON')
    .action(async (options: ImagesOptions) => {
      const { response, source } = await withCatalogClient(async (client, source) => ({
        response: await client.listImages(),
        source,
      }));
      const groups = response.data.mveImages.filter(
        (group) => matches(group.vendor, options.vendor) && matches(group.product, options.product),
      );
      process.stdout.write(
        options.json ? `${JSON.stringify(groups, null, 2)}\n` : imagesTable(groups, source.describe),
      );
    });
}

function matches(value: string, wanted: string | undefined): boolean {
  return wanted === undefined || value.trim().toLowerCase() === wanted.trim().toLowerCase();
}

function imagesTable(groups: ImageGroup[], source: string): string {
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
  if (rows.length === 0) return `No images match (at ${source}).\n`;
  return (
    formatTable(['ID', 'VENDOR', 'PRODUCT', 'VERSION', 'RELEASE', 'SIZES'], rows) +
    `${rows.length} images, at ${source}\n`
  );
}
