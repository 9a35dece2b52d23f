/** The kind map as a deployment configures it: the default, or an override file named by MVE_KIND_MAP. */
import { readFileSync } from 'node:fs';
import { DEFAULT_KIND_MAP, KIND_MAP_ENV, KindMapError, kindMapFromText, type KindMap } from '../../domain/index.js';

/** Reads an override file and merges it onto the default map. Throws KindMapError naming the problem. */
export function loadKindMap(file: string, base: KindMap = DEFAULT_KIND_MAP): KindMap {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new KindMapError(
      `kind map ${file} is not readable JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return kindMapFromText(text, file, base);
}

/** The default map, merged with the file named by MVE_KIND_MAP when set. */
export function kindMapFromEnv(env: NodeJS.ProcessEnv = process.env): KindMap {
  const file = env[KIND_MAP_ENV];
  return file ? loadKindMap(file) : DEFAULT_KIND_MAP;
}
