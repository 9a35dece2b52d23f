import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Connection } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { ORDER_SEARCH_ATTRIBUTES } from '../workflows/order/search-attributes.js';

const { IndexedValueType } = protoRoot.temporal.api.enums.v1;
const INDEXED_VALUE_TYPE = {
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  DOUBLE: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
} as const;

/**
 * Registers the order's search attributes (OrderStatus, TicketId, Environment, MonthlyRate) on the namespace.
 * Already registered is fine. On Temporal Cloud, where the OperatorService is not open to API keys, register
 * them once with `tcld` or the UI instead (see the README).
 */
export async function ensureOrderSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const searchAttributes = Object.fromEntries(
    ORDER_SEARCH_ATTRIBUTES.map((key) => [key.name, INDEXED_VALUE_TYPE[key.type]]),
  );
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  } catch (error) {
    if ((error as { code?: number }).code !== GrpcStatus.ALREADY_EXISTS) throw error;
  }
}
