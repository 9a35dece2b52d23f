import { rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { embeddedPostgresElsewhere } from '../postgres/index.js';
import { readDevState } from '../../client/cli/dev-state.js';

/**
 * `mve-orders dev --reset`: removes everything dev keeps for `dataDir` — the folder itself (database, Temporal state,
 * keys, tokens, ports) and what the embedded PostgreSQL keeps outside it as root (its cluster under /var/lib). Refused
 * while a dev runs on it. Returns what was removed.
 */
export async function resetDev(dataDir: string): Promise<string[]> {
  const running = await readDevState(dataDir);
  if (running.found)
    throw new Error(
      `mve-orders dev (pid ${running.state.pid}) is running on ${dataDir}: stop it (Ctrl-C) before --reset`,
    );
  const places = [dataDir, ...embeddedPostgresElsewhere(join(dataDir, 'postgres'))].filter((place) =>
    existsSync(place),
  );
  for (const place of places) await rm(place, { recursive: true, force: true });
  return places;
}
