/**
 * The order request a ticket carries (documented in docs/order-request.md). The shape is checked here;
 * the appliance kind's `vendorConfig` rules, the size/kind rules and the catalog checks are the domain's.
 */
import { z } from 'zod';
import { termSchema } from './common.js';
import { httpUrlProblem } from './formats/host.js';
import { hasControlCharacters } from './formats/text.js';
import { legacySizeSchema, sizeLabelSchema, vnicsSchema } from './order.js';

/** A one-line, non-blank label (ticket id, requester, product name, selector values). */
const label = (max: number) =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` })
    .refine((value) => value === '' || value.trim() !== '', { error: 'must not be blank', params: { rule: 'blank' } })
    .refine((value) => !hasControlCharacters(value), {
      error: 'must not contain control characters (line breaks, tabs)',
      params: { rule: 'forbidden-character' },
    });

const SELECTOR_FIELDS = ['name', 'metro', 'market', 'country'] as const;

export const locationSelectorSchema = z
  .strictObject({
    id: z.int().positive().optional(),
    name: label(200).optional(),
    metro: label(200).optional(),
    market: label(200).optional(),
    country: label(200).optional(),
  })
  .superRefine((selector, context) => {
    const byField = SELECTOR_FIELDS.filter((field) => selector[field] !== undefined);
    if (selector.id !== undefined && byField.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `must be either {id} or a selector by ${byField.join('/')}, not both`,
        params: { rule: 'location-selector' },
      });
    } else if (selector.id === undefined && byField.length === 0) {
      context.addIssue({
        code: 'custom',
        message: 'must give id, or at least one of name, metro, market, country',
        params: { rule: 'location-selector' },
      });
    }
  });

export const imageSelectorSchema = z
  .strictObject({
    id: z.int().positive().optional(),
    vendor: label(200).optional(),
    product: label(200).optional(),
    version: label(200).optional(),
  })
  .superRefine((selector, context) => {
    const given = (['vendor', 'product', 'version'] as const).filter((field) => selector[field] !== undefined);
    if (selector.id !== undefined) {
      if (given.length > 0) {
        context.addIssue({
          code: 'custom',
          message: 'must be either {id} or {vendor, product, version}, not both',
          params: { rule: 'image-selector' },
        });
      }
      return;
    }
    for (const field of ['vendor', 'product', 'version'] as const) {
      if (selector[field] === undefined) {
        const hint = field === 'version' ? ' (use "latest" for the newest release image)' : '';
        context.addIssue({
          code: 'custom',
          path: [field],
          message: `is required when the image is not given by id${hint}`,
          params: { rule: 'required' },
        });
      }
    }
  });

export const orderRequestSchema = z
  .strictObject({
    ticketId: label(200),
    requestedBy: label(200),
    environment: z.enum(['staging', 'production'], { error: 'must be "staging" or "production"' }),
    location: locationSelectorSchema,
    image: imageSelectorSchema,
    /** Optional hint naming the appliance kind, for when the fields alone cannot tell (docs/order-request.md). */
    kind: z.string().optional(),
    productName: label(200),
    term: termSchema,
    size: sizeLabelSchema.optional(),
    productSize: legacySizeSchema.optional(),
    promoCode: z.string().nullable().optional(),
    vendorConfig: z.record(z.string(), z.unknown()),
    vnics: vnicsSchema.optional(),
    /**
     * The team (cost centre) the order is charged to: one of the teams of its environment's approval policy, checked at
     * intake (docs/approval-policy.md, "Teams and budgets"); without it, the requester's team in the approver directory.
     */
    costCentre: label(64).optional(),
    callbackUrl: z
      .string()
      .refine((value) => httpUrlProblem(value) === null, {
        error: 'must be an http or https URL',
        params: { rule: 'url' },
      })
      .optional(),
  })
  .superRefine((request, context) => {
    if (request.size === undefined && request.productSize === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['size'],
        message: 'is required (an "MVE <vCPU>/<GB>" label, e.g. "MVE 4/16")',
        params: { rule: 'required' },
      });
    }
  });

export type LocationSelector = z.infer<typeof locationSelectorSchema>;
export type ImageSelector = z.infer<typeof imageSelectorSchema>;
export type OrderRequest = z.infer<typeof orderRequestSchema>;
