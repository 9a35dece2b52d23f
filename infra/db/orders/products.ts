import { z } from 'zod';
import type { Sql } from '../connection.js';
import { RepositoryError } from '../errors.js';
import type { OrderRow } from '../records.js';
import { productInput, type ProductInput } from '../schemas.js';
import { operation } from '../validate.js';
import { requireOrder } from './require-order.js';

/** The product an order was bought with, its provisioning status as last read, and the way back to its order. */
export interface OrderProducts {
  recordProduct(input: ProductInput): Promise<void>;
  /** The order a product (technicalServiceUid) was bought for, as recorded; null when no order has it. */
  orderOfProduct(technicalServiceUid: string): Promise<{ workflowId: string; ticketId: string } | null>;
}

const productUidInput = z.string().min(1, 'must not be empty').max(255, 'at most 255 characters');

export function createOrderProducts(sql: Sql): OrderProducts {
  return {
    recordProduct: (input) =>
      operation('recordProduct', productInput, input, async (product) => {
        const updated = await sql`
          UPDATE orders SET product_technical_service_uid = ${product.technicalServiceUid},
                 product_provisioning_status = ${product.provisioningStatus}, updated_at = now()
          WHERE workflow_id = ${product.workflowId}
            AND coalesce(product_technical_service_uid, ${product.technicalServiceUid}) = ${product.technicalServiceUid}
          RETURNING 1`;
        if (updated.length > 0) return;
        await requireOrder(sql, 'recordProduct', product.workflowId);
        // Its status follows the provider; the product an order was bought with is never replaced.
        throw new RepositoryError(
          'conflict',
          `recordProduct: order ${product.workflowId} was bought with another product; it is not replaced by ${product.technicalServiceUid}`,
        );
      }),

    orderOfProduct: (technicalServiceUid) =>
      operation('orderOfProduct', productUidInput, technicalServiceUid, async (uid) => {
        const [row] = await sql<Array<Pick<OrderRow, 'workflow_id' | 'ticket_id'>>>`
          SELECT o.workflow_id, o.ticket_id FROM orders o
          WHERE o.product_technical_service_uid = ${uid}
             OR EXISTS (SELECT 1 FROM buy_attempts b WHERE b.workflow_id = o.workflow_id
                        AND b.outcome = 'created' AND b.technical_service_uid = ${uid})
          LIMIT 1`;
        return row ? { workflowId: row.workflow_id, ticketId: row.ticket_id } : null;
      }),
  };
}
