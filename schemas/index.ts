/** Public face of schemas/: zod schemas of the spec's resources and of the order request. Imports nothing of ours. */
export {
  apiErrorBodySchema,
  buyResponseSchema,
  createdProductItemSchema,
  diversityZoneSchema,
  imageGroupSchema,
  imageSchema,
  imagesResponseSchema,
  locationSchema,
  locationsResponseSchema,
  tokenResponseSchema,
  validateResponseSchema,
  validationResultItemSchema,
  variantsResponseSchema,
} from './api.js';
export type {
  ApiErrorBody,
  BuyResponse,
  CreatedProductItem,
  DiversityZone,
  Image,
  ImageGroup,
  ImagesResponse,
  Location,
  TokenResponse,
  ValidateResponse,
  ValidationResultItem,
} from './api.js';
export {
  buyEnvelopeSchema,
  legacySizeSchema,
  MAX_VNICS,
  orderObjectSchema,
  sizeLabelSchema,
  validateBodySchema,
  vendorConfigSchema,
  vnicSchema,
  vnicsSchema,
} from './order.js';
export type { BuyEnvelope, OrderObject, ValidateBody, VendorConfig, Vnic } from './order.js';
export { imageSelectorSchema, locationSelectorSchema, orderRequestSchema } from './request.js';
export type { ImageSelector, LocationSelector, OrderRequest } from './request.js';
export { TERMS, termSchema } from './common.js';
export type { Term } from './common.js';
export { isDocumentedSize, isLegacySize, LEGACY_SIZE_LABELS, SIZE_LABEL_PATTERN, SIZE_LABELS } from './sizes.js';
export type { LegacySize, SizeLabel } from './sizes.js';
export * from './formats/index.js';
