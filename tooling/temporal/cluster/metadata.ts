import postgres from 'postgres';
import type { ClusterDatabase } from './config.js';

/** What the cluster recorded of itself: Temporal's ClusterMetadata (proto/internal/…/persistence/v1/cluster_metadata.proto). */
export interface RecordedCluster {
  /** Set at its first start; a server started later with another count logs a warning and uses this one. */
  historyShards: number;
  /** The frontend address its config named (`clusterInformation.<name>.rpcAddress`) when it last recorded it. */
  clusterAddress: string;
}

/** Its fields in Temporal's ClusterMetadata message. */
const HISTORY_SHARD_COUNT = 2;
const CLUSTER_ADDRESS = 6;
/** PostgreSQL's SQLSTATE for a database that does not exist. */
const INVALID_CATALOG_NAME = '3D000';

/**
 * The cluster's row of `cluster_metadata_info`, or undefined for a cluster that has not started yet: no database, no
 * table or no row.
 */
export async function recordedCluster(db: ClusterDatabase): Promise<RecordedCluster | undefined> {
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
    const fields = protobufFields(row['data'] as Uint8Array);
    const address = fields.get(CLUSTER_ADDRESS);
    return {
      historyShards: Number(BigInt.asIntN(32, (fields.get(HISTORY_SHARD_COUNT) as bigint | undefined) ?? 0n)),
      clusterAddress: address instanceof Uint8Array ? new TextDecoder().decode(address) : '',
    };
  } catch (error) {
    if ((error as { code?: string }).code === INVALID_CATALOG_NAME) return undefined; // no such database yet
    throw error;
  } finally {
    await sql.end();
  }
}

/**
 * The varint (as bigint) and length-delimited (as bytes) fields of a protobuf message, by field number, the first of
 * each; fixed-width fields are skipped.
 */
export function protobufFields(message: Uint8Array): Map<number, bigint | Uint8Array> {
  const fields = new Map<number, bigint | Uint8Array>();
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
  const keep = (field: number, value: bigint | Uint8Array) => {
    if (!fields.has(field)) fields.set(field, value);
  };
  while (at < message.length) {
    const key = Number(varint());
    const field = key >>> 3;
    const wireType = key & 7;
    if (wireType === 0) keep(field, varint());
    else if (wireType === 2) {
      const length = Number(varint()); // read before `at` is: reading the length moves it
      keep(field, message.subarray(at, at + length));
      at += length;
    } else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else throw new Error(`a protobuf field of wire type ${wireType}, which this reader does not skip`);
  }
  return fields;
}
