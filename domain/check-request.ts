/**
 * Checks an order request (the ticket's document) offline against every rule, and, when catalogs are
 * given, against them too: the image exists, the size is offered for it, the location is usable.
 * Everything is reported at once; nothing here touches the network.
 */
import {
  imageSelectorSchema,
  locationSelectorSchema,
  orderRequestSchema,
  vnicsSchema,
  type ImageGroup,
  type Location,
  type OrderRequest,
} from '../schemas/index.js';
import { issue, issuesFromZod, ROOT_PATH, type Issue } from './issues.js';
import { isRecord } from './json.js';
import { DEFAULT_KIND_MAP, type KindMap } from './kind-map.js';
import { checkSizeForKind, checkVendorConfig, checkVnicCount, omittedVnicsWarning } from './kind-rules.js';
import type { KindId } from './kinds.js';
import { kindScope, resolveKind } from './resolve-kind.js';
import { selectImage, sizeOfferedIssue, type CatalogImage } from './select-image.js';
import { selectLocation } from './select-location.js';
import { resolveRequestSize, undocumentedSizeWarning } from './sizes.js';

export interface CheckOptions {
  images?: readonly ImageGroup[];
  locations?: readonly Location[];
  kindMap?: KindMap;
}

export interface RequestCheck {
  ok: boolean;
  kind?: KindId;
  errors: Issue[];
  warnings: Issue[];
  /** The parsed request, when its shape is valid (even if other rules fail). */
  request?: OrderRequest;
  /** The catalog choices, when catalogs were given and the selection succeeded. */
  location?: Location;
  image?: CatalogImage;
}

export function checkOrderRequest(input: unknown, options: CheckOptions = {}): RequestCheck {
  if (!isRecord(input)) {
    return { ok: false, errors: [issue(ROOT_PATH, 'type', 'the order request must be a JSON object')], warnings: [] };
  }
  const parsed = orderRequestSchema.safeParse(input);
  const errors: Issue[] = parsed.success ? [] : issuesFromZod(parsed.error, input);
  const warnings: Issue[] = [];
  const result: RequestCheck = { ok: false, errors, warnings, ...(parsed.success ? { request: parsed.data } : {}) };

  const size = resolveRequestSize(input['size'], input['productSize']);
  errors.push(...size.errors);
  // The schema's own "size is required" is skipped by zod when other fields already failed.
  if (input['size'] === undefined && input['productSize'] === undefined && !errors.some((entry) => entry.path === 'size')) {
    errors.push(issue('size', 'required', 'size is required (an "MVE <vCPU>/<GB>" label, e.g. "MVE 4/16")'));
  }
  warnings.push(...size.warnings);

  // Each part is read on its own, so one broken field does not hide the problems of the others.
  const imageSelector = imageSelectorSchema.safeParse(input['image']);
  let family: { vendor: string; product: string } | undefined;
  // When the catalog has no such image, the kind falls back to the fields' signature, and a failure to
  // tell it from them is a consequence of the image error, not a second problem.
  let imageMissing = !imageSelector.success;
  if (imageSelector.success && options.images) {
    const selected = selectImage(options.images, imageSelector.data);
    if (selected.ok) {
      result.image = selected.value;
      family = selected.value;
      warnings.push(...selected.warnings);
      const notOffered = size.label === undefined ? null : sizeOfferedIssue(selected.value.availableSizes, size.label, size.path, selected.value);
      if (notOffered) errors.push(notOffered);
    } else {
      errors.push(...selected.issues);
      imageMissing = selected.issues.some((entry) => entry.path.startsWith('image'));
    }
  } else if (imageSelector.success && imageSelector.data.vendor !== undefined && imageSelector.data.product !== undefined) {
    family = { vendor: imageSelector.data.vendor, product: imageSelector.data.product };
  }
  if (size.label !== undefined && !options.images) {
    const undocumented = undocumentedSizeWarning(size.label, size.path);
    if (undocumented) warnings.push(undocumented);
  }

  const locationSelector = locationSelectorSchema.safeParse(input['location']);
  if (locationSelector.success && options.locations) {
    const selected = selectLocation(options.locations, locationSelector.data);
    if (selected.ok) {
      result.location = selected.value;
      warnings.push(...selected.warnings);
    } else {
      errors.push(...selected.issues);
    }
  }

  const vendorConfig = input['vendorConfig'];
  if (isRecord(vendorConfig)) {
    const scope = kindScope(family, options.kindMap ?? DEFAULT_KIND_MAP);
    if (scope.ok) {
      const vnics = vnicsSchema.safeParse(input['vnics']);
      const resolution = resolveKind(
        {
          config: vendorConfig,
          ...(size.label === undefined ? {} : { size: size.label }),
          ...(vnics.success ? { vnicCount: vnics.data.length } : {}),
          // A non-string kind is already a shape error; the fields decide instead.
          hint: typeof input['kind'] === 'string' ? input['kind'] : undefined,
        },
        scope.value,
      );
      if (resolution.ok) {
        result.kind = resolution.kind;
        errors.push(...checkVendorConfig(resolution.kind, vendorConfig, 'request'));
        if (size.label !== undefined) errors.push(...checkSizeForKind(resolution.kind, size.label, size.path));
        if (vnics.success) errors.push(...checkVnicCount(resolution.kind, vnics.data.length));
        else if (input['vnics'] === undefined) warnings.push(omittedVnicsWarning(resolution.kind));
      } else if (!imageMissing) {
        errors.push(resolution.issue);
      }
    } else {
      errors.push(scope.issue);
    }
  }

  const promoCode = input['promoCode'];
  if (typeof promoCode === 'string' && promoCode.trim() === '') {
    warnings.push(issue('promoCode', 'promo-code-empty', 'promoCode is empty: it is treated as no promo code and sent as null'));
  }

  result.ok = errors.length === 0;
  return result;
}
