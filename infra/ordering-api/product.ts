/**
 * The provider's read of one product, `GET /v2/product/{productUid}` (beyond the spec): how a bought MVE is
 * getting on. Read leniently like every response: only the uid and the status are required; the status is kept
 * as sent, since the provider has more states than we know; a field we only show is dropped when unreadable.
 */
import { z } from 'zod';
import { lenientNumberSchema, numericIdSchema } from '../../schemas/common.js';

/** What the follow-up of an order needs to know of a product, dates as ISO text. */
export interface ApiProduct {
  productUid: string;
  productName?: string;
  productType?: string;
  /** As sent: DEPLOYABLE, CONFIGURED, LIVE, CANCELLED, DECOMMISSIONED… or a state we do not know. */
  provisioningStatus: string;
  contractTermMonths?: number;
  locationId?: number;
  createdAt?: string;
  /** When it went live; absent until then. */
  liveAt?: string;
}

/** What an API that does not know a product, or does not offer the read at all, answers it. */
const PRODUCT_NOT_READ_STATUSES = [404, 405] as const;
export type ProductNotReadStatus = (typeof PRODUCT_NOT_READ_STATUSES)[number];

export function isProductNotRead(status: number): status is ProductNotReadStatus {
  return (PRODUCT_NOT_READ_STATUSES as readonly number[]).includes(status);
}

/** A product read: the product, or the 404/405 of an API that does not know it or does not offer the read. */
export type ProductRead = { found: true; product: ApiProduct } | { found: false; status: ProductNotReadStatus };

/** The uid that goes into the path: an empty one would read as an API without the product read. */
export const productPathSchema = z.object({ productUid: z.string().trim().min(1, 'must not be empty') });

/** A field we only pass on: null, absent and unreadable all read as absent. */
const shown = <T extends z.ZodType>(schema: T) => schema.nullish().catch(undefined);

/** Epoch milliseconds, as the provider sends dates, to ISO text. */
const epochMs = lenientNumberSchema
  .pipe(z.number().int().min(0).max(8_640_000_000_000_000))
  .transform((ms) => new Date(ms).toISOString());

export const productResponseSchema = z
  .looseObject({
    data: z.looseObject({
      productUid: z.string().min(1),
      productName: shown(z.string()),
      productType: shown(z.string()),
      provisioningStatus: z.string().min(1),
      contractTermMonths: shown(lenientNumberSchema),
      locationId: shown(numericIdSchema),
      createDate: shown(epochMs),
      liveDate: shown(epochMs),
    }),
  })
  .transform(({ data }): ApiProduct =>
    withoutEmpty({
      productUid: data.productUid,
      productName: data.productName,
      productType: data.productType,
      provisioningStatus: data.provisioningStatus,
      contractTermMonths: data.contractTermMonths,
      locationId: data.locationId,
      createdAt: data.createDate,
      liveAt: data.liveDate,
    }),
  );

/** The fields that have a value: a product the provider tells little about carries no empty keys. */
function withoutEmpty<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined && field !== null)) as {
    [K in keyof T]: Exclude<T[K], null>;
  };
}
