/**
 * start-dev and a cluster keep their state in different places (SQLite in `temporal.db`; PostgreSQL's `temporal`
 * databases), so an order that runs on one is unknown to the other. A start on the other kind than the last start in
 * the data folder is refused while orders are open that the Temporal now started does not know: they would sit in the
 * records with no workflow to run them. They are finished (or cancelled) on the kind they run on first.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TemporalConfig } from '../../config/temporal.js';
import { openDatabase } from '../../infra/db/index.js';
import { openOrders, unknownTo } from './earlier-orders.js';
import { TEMPORAL_DB_FILE } from './real-temporal.js';
import { DEV_TEMPORAL_KINDS, type DevTemporalKind } from './temporal-kind.js';

/** The kind of Temporal the last start in the data folder ran. */
export const DEV_TEMPORAL_FILE = 'dev-temporal.json';
/** Where dev's cluster keeps its config files and logs (its state is in PostgreSQL). */
export const DEV_CLUSTER_DIR = 'temporal-cluster';

/**
 * The kind of the last start: as recorded, else as its state shows (a data folder of a dev from before `--temporal`
 * has `temporal.db`); undefined for a new data folder.
 */
export async function lastTemporalKind(dataDir: string): Promise<DevTemporalKind | undefined> {
  try {
    const { kind } = JSON.parse(await readFile(join(dataDir, DEV_TEMPORAL_FILE), 'utf8')) as { kind?: unknown };
    if ((DEV_TEMPORAL_KINDS as readonly unknown[]).includes(kind)) return kind as DevTemporalKind;
  } catch {
    // none yet, or unreadable: the state tells
  }
  if (existsSync(join(dataDir, TEMPORAL_DB_FILE))) return 'start-dev';
  if (existsSync(join(dataDir, DEV_CLUSTER_DIR))) return 'cluster';
  return undefined;
}

export async function rememberTemporalKind(dataDir: string, kind: DevTemporalKind): Promise<void> {
  await writeFile(join(dataDir, DEV_TEMPORAL_FILE), `${JSON.stringify({ kind })}\n`, { mode: 0o600 });
}

/** Throws, naming the orders and what to do, when this start switches kind and would strand open orders. */
export async function refuseStrandingSwitch(options: {
  dataDir: string;
  kind: DevTemporalKind;
  databaseUrl: string;
  temporal: { address: string; config: TemporalConfig };
}): Promise<void> {
  const last = await lastTemporalKind(options.dataDir);
  if (last === undefined || last === options.kind) return;
  const sql = await openDatabase(options.databaseUrl, { maxConnections: 1 });
  const stranded = await openOrders(sql).finally(() => sql.end());
  const unknown = await unknownTo(options.temporal, stranded);
  if (unknown.length === 0) return;
  const tickets = unknown.slice(0, 5).map((order) => `${order.ticketId} (${order.status})`);
  const more = unknown.length > tickets.length ? `, and ${unknown.length - tickets.length} more` : '';
  throw new Error(
    `this data folder's last dev ran Temporal as ${last}, and ${unknown.length} open order` +
      `${unknown.length === 1 ? '' : 's'} ran there: ${tickets.join(', ')}${more}. Temporal as ${options.kind} keeps ` +
      `its state apart and does not know them, so they would go no further. Finish or cancel them on ${last} first ` +
      `(\`npx mve-orders dev --temporal ${last}\`), or use another data folder (MVE_DATA_DIR) for ${options.kind}`,
  );
}
