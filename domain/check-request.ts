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
import { resolveRequestSize, undocumentedSizeWarning, type ResolvedSize } from './sizes.js';

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

/** Errors and warnings gathered by the parts of one check. */
interface Findings {
  errors: Issue[];
  warnings: Issue[];
}

export function checkOrderRequest(input: unknown, options: CheckOptions = {}): RequestCheck {
  if (!isRecord(input)) {
    return { ok: false, errors: [issue(ROOT_PATH, 'type', 'the order request must be a JSON object')], warnings: [] };
  }
  const parsed = orderRequestSchema.safeParse(input);
  const found: Findings = { errors: parsed.success ? [] : issuesFromZod(parsed.error, input), warnings: [] };
  const result: RequestCheck = {
    ok: false,
    errors: found.errors,
    warnings: found.warnings,
    ...(parsed.success ? { request: parsed.data } : {}),
  };

  // Each part is read on its own, so one broken field does not hide the problems of the others.
  const size = checkSize(input, found);
  const image = checkImage(input['image'], size, options.images, found);
  if (image.selected) result.image = image.selected;
  if (options.locations) {
    const location = checkLocation(input['location'], options.locations, found);
    if (location) result.location = location;
  }
  const kind = checkKind(input, size, image, options.kindMap ?? DEFAULT_KIND_MAP, found);
  if (kind) result.kind = kind;

  const promoCode = input['promoCode'];
  if (typeof promoCode === 'string' && promoCode.trim() === '') {
    found.warnings.push(
      issue('promoCode', 'promo-code-empty', 'promoCode is empty: it is treated as no promo code and sent as null'),
    );
  }
  result.ok = found.errors.length === 0;
  return result;
}

function checkSize(input: Record<string, unknown>, found: Findings): ResolvedSize {
  const size = resolveRequestSize(input['size'], input['productSize']);
  found.errors.push(...size.errors);
  found.warnings.push(...size.warnings);
  // The schema's own "size is required" is skipped by zod when other fields already failed.
  if (
    input['size'] === undefined &&
    input['productSize'] === undefined &&
    !found.errors.some((entry) => entry.path === 'size')
  ) {
    found.errors.push(issue('size', 'required', 'size is required (an "MVE <vCPU>/<GB>" label, e.g. "MVE 4/16")'));
  }
  return size;
}

interface ImageFacts {
  /** The image family, when the request or the catalog tells it. */
  family?: { vendor: string; product: string };
  selected?: CatalogImage;
  /** The image itself is in error, so failing to tell the kind from the fields is no second problem. */
  broken: boolean;
}

function checkImage(
  raw: unknown,
  size: ResolvedSize,
  images: readonly ImageGroup[] | undefined,
  found: Findings,
): ImageFacts {
  const selector = imageSelectorSchema.safeParse(raw);
  if (!selector.success) return { broken: true };
  if (!images) {
    if (size.label !== undefined) {
      const undocumented = undocumentedSizeWarning(size.label, size.path);
      if (undocumented) found.warnings.push(undocumented);
    }
    const { vendor, product } = selector.data;
    return { broken: false, ...(vendor !== undefined && product !== undefined ? { family: { vendor, product } } : {}) };
  }
  const selected = selectImage(images, selector.data);
  if (!selected.ok) {
    found.errors.push(...selected.issues);
    return { broken: true };
  }
  found.warnings.push(...selected.warnings);
  const notOffered =
    size.label === undefined
      ? null
      : sizeOfferedIssue(selected.value.availableSizes, size.label, size.path, selected.value);
  if (notOffered) found.errors.push(notOffered);
  return { broken: false, family: selected.value, selected: selected.value };
}

function checkLocation(raw: unknown, locations: readonly Location[], found: Findings): Location | undefined {
  const selector = locationSelectorSchema.safeParse(raw);
  if (!selector.success) return undefined;
  const selected = selectLocation(locations, selector.data);
  if (!selected.ok) {
    found.errors.push(...selected.issues);
    return undefined;
  }
  found.warnings.push(...selected.warnings);
  return selected.value;
}

function checkKind(
  input: Record<string, unknown>,
  size: ResolvedSize,
  image: ImageFacts,
  kindMap: KindMap,
  found: Findings,
): KindId | undefined {
  const vendorConfig = input['vendorConfig'];
  if (!isRecord(vendorConfig)) return undefined;
  const scope = kindScope(image.family, kindMap);
  if (!scope.ok) {
    found.errors.push(scope.issue);
    return undefined;
  }
  const vnics = vnicsSchema.safeParse(input['vnics']);
  const resolution = resolveKind(
    {
      config: vendorConfig,
      ...(size.label === undefined ? {} : { size: size.label, sizePath: size.path }),
      ...(vnics.success ? { vnicCount: vnics.data.length } : {}),
      // A non-string kind is already a shape error; the fields decide instead.
      hint: typeof input['kind'] === 'string' ? input['kind'] : undefined,
    },
    scope.value,
  );
  if (!resolution.ok) {
    if (!image.broken) found.errors.push(...resolution.issues);
    return undefined;
  }
  const kind = resolution.kind;
  found.errors.push(...checkVendorConfig(kind, vendorConfig, 'request'));
  if (size.label !== undefined) found.errors.push(...checkSizeForKind(kind, size.label, size.path));
  if (vnics.success) found.errors.push(...checkVnicCount(kind, vnics.data.length));
  else if (input['vnics'] === undefined) found.warnings.push(omittedVnicsWarning(kind));
  return kind;
}
