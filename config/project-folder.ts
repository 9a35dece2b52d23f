import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's folder, where package.json is: the home of what lives beside the code (the data folder, the
 * migrations, the project's tools). Found from this module's place, which is `config/` when it runs from the
 * TypeScript sources and `dist/config/` when it runs compiled (npm run build), one folder deeper.
 */
export const PROJECT_FOLDER = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../' : '../../', import.meta.url),
);

/** A path inside the project's folder, e.g. projectPath('.data'). */
export function projectPath(...segments: string[]): string {
  return path.join(PROJECT_FOLDER, ...segments);
}
