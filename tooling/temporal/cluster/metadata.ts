import postgres from 'postgres';
import type { ClusterDatabase } from './config.js';

/**
 * The history shard count the cluster recorded at its first start (its row of `cluster_metadata_info`), or undefined
 * for a cluster that has not started yet: no database, no table or no row. A server started later with another count
 * in its config logs a warning and uses the recorded one, so the count is fixed for the cluster's life.
 */
export async function recordedHistoryShards(db: ClusterDatabase): Promise<number | undefined> {
  const sql = postgres({
    host: db.host,
    port: db.port,
    user: db.user,
    password: db.password,
    database: db.database,
    max: 1,
    onnotice: () => undefined,
  });
  try {
    const [table] = await sql`SELECT to_regclass('cluster_metadata_info') AS name`;
    if (!table?.['name']) return undefined;
    const [row] = await sql`
      SELECT data, data_encoding FROM cluster_metadata_info WHERE metadata_partition = 0 ORDER BY cluster_name LIMIT 1`;
    if (!row) return undefined;
    if (row['data_encoding'] !== 'Proto3')
      throw new Error(`cluster_metadata_info of ${db.database} is encoded ${String(row['data_encoding'])}, not Proto3`);
    return int32Field(row['data'] as Uint8Array, HISTORY_SHARD_COUNT);
  } catch (error) {
    if ((error as { code?: string }).code === INVALID_CATALOG_NAME) return undefined; // no such database yet
    throw error;
  } finally {
    await sql.end();
  }
}

/** `history_shard_count` in Temporal's ClusterMetadata message (proto/internal/…/persistence/v1/cluster_metadata.proto). */
const HISTORY_SHARD_COUNT = 2;
/** PostgreSQL's SQLSTATE for a database that does not exist. */
const INVALID_CATALOG_NAME = '3D000';

/** The value of a varint field of a protobuf message, read field by field (the others skipped by their wire type). */
export function int32Field(message: Uint8Array, field: number): number | undefined {
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = message[at++];
      if (byte === undefined) throw new Error('a protobuf message cut short');
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  while (at < message.length) {
    const key = Number(varint());
    const wireType = key & 7;
    if (wireType === 0) {
      const value = varint();
      if (key >>> 3 === field) return Number(BigInt.asIntN(32, value));
    } else if (wireType === 2) {
      const length = Number(varint()); // read before `at` is: the length moves it
      at += length;
    } else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else throw new Error(`a protobuf field of wire type ${wireType}, which this reader does not skip`);
  }
  return undefined;
}
