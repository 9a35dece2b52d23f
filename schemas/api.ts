/**
 * Lenient readers for what the API returns (spec 2.1, 2.2, 2.8, 2.9, 4.1-4.6). Extra fields are kept
 * (loose objects), `null` is tolerated wherever the engine can live without the value, and size labels are
 * any string. Only what the engine needs is required.
 */
import { z } from 'zod';
import { informationalIdSchema, lenientNumberSchema, numericIdSchema } from './common.js';

const optionalText = z.string().nullish();
const speedList = z.array(z.number()).nullish();

export const diversityZoneSchema = z.looseObject({
  mcrSpeedMbps: speedList,
  portSpeedMbps: speedList,
  mveMaxCpuCoreCount: z.number().nullish(),
  mveAvailable: z.boolean().nullish(),
});

export const locationSchema = z.looseObject({
  id: numericIdSchema,
  name: z
    .string()
    .nullish()
    .transform((value) => value ?? ''),
  address: z
    .looseObject({
      street: optionalText,
      suburb: optionalText,
      city: optionalText,
      state: optionalText,
      postcode: optionalText,
      country: optionalText,
    })
    .nullish(),
  dataCentre: z.looseObject({ id: informationalIdSchema, name: optionalText }).nullish(),
  metro: optionalText,
  market: optionalText,
  status: optionalText,
  diversityZones: z.record(z.string(), diversityZoneSchema.nullable()).nullish(),
});

/** The envelope is "not shown" in the spec: a bare array or `{ data: [...] }`; either way yields the array. */
export const locationsResponseSchema = z.union([
  z.array(locationSchema),
  z.looseObject({ data: z.array(locationSchema) }).transform((body) => body.data),
]);

export const imageSchema = z.looseObject({
  id: numericIdSchema,
  version: z
    .string()
    .nullish()
    .transform((value) => value ?? ''),
  productCode: optionalText,
  releaseImage: z.boolean().nullish(),
  availableSizes: z
    .array(z.string())
    .nullish()
    .transform((value) => value ?? []),
  vendorDescription: optionalText,
});

export const imageGroupSchema = z.looseObject({
  vendor: z.string(),
  product: z.string(),
  vendorProductId: informationalIdSchema,
  images: z
    .array(imageSchema)
    .nullish()
    .transform((value) => value ?? []),
});

export const imagesResponseSchema = z.looseObject({
  message: optionalText,
  terms: optionalText,
  data: z.looseObject({ mveImages: z.array(imageGroupSchema) }),
});

/** Shape "not shown" in the spec: any JSON object or array is accepted as is. */
export const variantsResponseSchema = z.union([z.array(z.unknown()), z.looseObject({ data: z.unknown().optional() })]);

export const validationResultItemSchema = z.looseObject({
  price: z.looseObject({
    monthlyRate: lenientNumberSchema,
    currency: z.string(),
    productType: optionalText,
  }),
  serviceName: optionalText,
  productType: optionalText,
  productUid: optionalText,
});

export const validateResponseSchema = z.looseObject({
  message: optionalText,
  terms: optionalText,
  data: z.array(validationResultItemSchema),
});

export const createdProductItemSchema = z.looseObject({
  serviceName: optionalText,
  technicalServiceUid: z.string().min(1),
  productType: optionalText,
  provisioningStatus: optionalText,
  contractTermMonths: lenientNumberSchema.nullish(),
});

export const buyResponseSchema = z.looseObject({
  message: optionalText,
  terms: optionalText,
  data: z.array(createdProductItemSchema),
});

export const tokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  expires_in: lenientNumberSchema,
  token_type: optionalText,
});

/** Error bodies seen from such APIs: `{ message, data, trace_id }`, any of them missing or oddly typed. */
export const apiErrorBodySchema = z.looseObject({
  message: z.string().optional().catch(undefined),
  data: z.unknown().optional(),
  trace_id: z.union([z.string(), z.number()]).transform(String).optional().catch(undefined),
});

export type DiversityZone = z.infer<typeof diversityZoneSchema>;
export type Location = z.infer<typeof locationSchema>;
export type Image = z.infer<typeof imageSchema>;
export type ImageGroup = z.infer<typeof imageGroupSchema>;
export type ImagesResponse = z.infer<typeof imagesResponseSchema>;
export type ValidationResultItem = z.infer<typeof validationResultItemSchema>;
export type ValidateResponse = z.infer<typeof validateResponseSchema>;
export type CreatedProductItem = z.infer<typeof createdProductItemSchema>;
export type BuyResponse = z.infer<typeof buyResponseSchema>;
export type TokenResponse = z.infer<typeof tokenResponseSchema>;
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
