/**
 * Exact writers for what we send (spec 2.3, 2.4, 2.7, 4.3, 4.4): no unknown keys, every type as the spec
 * says. The appliance kind's own `vendorConfig` fields are checked by the domain's kind table; here they
 * are only required to be strings or booleans.
 */
import { z } from 'zod';
import { termSchema } from './common.js';
import { LEGACY_SIZE_LABELS, SIZE_LABEL_PATTERN } from './sizes.js';

export const vnicSchema = z.strictObject({ description: z.string().optional() });

export const MAX_VNICS = 5;

const VNIC_COUNT = `must hold 1 to ${MAX_VNICS} vNICs (omit vnics to get the appliance kind's minimum)`;
export const vnicsSchema = z.array(vnicSchema).min(1, { error: VNIC_COUNT }).max(MAX_VNICS, { error: VNIC_COUNT });

export const sizeLabelSchema = z
  .string()
  .regex(SIZE_LABEL_PATTERN, { error: 'must be a size label "MVE <vCPU>/<GB>", e.g. "MVE 4/16"' });

export const legacySizeSchema = z.enum(Object.keys(LEGACY_SIZE_LABELS) as [keyof typeof LEGACY_SIZE_LABELS], {
  error: `must be one of ${Object.keys(LEGACY_SIZE_LABELS).join(', ')}`,
});

export const vendorConfigSchema = z
  .object({
    imageId: z.int().positive(),
    mveLabel: sizeLabelSchema.optional(),
    productSize: legacySizeSchema.optional(),
  })
  .catchall(z.union([z.string(), z.boolean()]))
  .refine((config) => config.mveLabel !== undefined || config.productSize !== undefined, {
    error: 'is required (or the deprecated productSize)',
    path: ['mveLabel'],
    params: { rule: 'required' },
  });

export const orderObjectSchema = z.strictObject({
  locationId: z.int().positive(),
  productName: z.string().min(1),
  productType: z.literal('MVE', { error: 'must be "MVE"' }),
  term: termSchema,
  promoCode: z.string().nullable().optional(),
  vendorConfig: vendorConfigSchema,
  vnics: vnicsSchema.optional(),
});

/** POST /v3/networkdesign/validate: a bare array holding one order object. */
export const validateBodySchema = z.tuple([orderObjectSchema]);

/** POST /v4/networkdesign/buy. */
export const buyEnvelopeSchema = z.strictObject({
  networkDesign: z.array(orderObjectSchema).min(1),
  discountCodes: z.array(z.string()),
  solutions: z.array(z.unknown()).optional(),
});

export type Vnic = z.infer<typeof vnicSchema>;
export type VendorConfig = z.infer<typeof vendorConfigSchema>;
export type OrderObject = z.infer<typeof orderObjectSchema>;
export type ValidateBody = z.infer<typeof validateBodySchema>;
export type BuyEnvelope = z.infer<typeof buyEnvelopeSchema>;
