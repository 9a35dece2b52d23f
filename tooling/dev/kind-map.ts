import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_KIND_MAP, kindsForFamily } from '../../domain/index.js';
import { SIM_KIND_MAP } from '../sim/index.js';

export const SIM_KIND_MAP_FILE = 'sim-kind-map.json';

/**
 * The simulator offers one image family the default kind map lacks (K5's). Dev writes that family as a kind-map
 * override file and points MVE_KIND_MAP at it, exactly as an operator would for a family the map does not know.
 */
export async function writeSimKindMap(dataDir: string): Promise<string> {
  const entries = SIM_KIND_MAP.filter(
    (entry) => kindsForFamily(DEFAULT_KIND_MAP, entry.vendor, entry.product) === undefined,
  );
  const path = join(dataDir, SIM_KIND_MAP_FILE);
  await writeFile(path, `${JSON.stringify({ entries }, null, 2)}\n`);
  return path;
}
