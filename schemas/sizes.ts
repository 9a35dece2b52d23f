/** Instance sizes (spec 2.6): the five documented labels and the deprecated legacy names they replace. */

export const SIZE_LABELS = ['MVE 2/8', 'MVE 4/16', 'MVE 8/32', 'MVE 16/64', 'MVE 32/128'] as const;
export type SizeLabel = (typeof SIZE_LABELS)[number];

/** Legacy `productSize` value → `mveLabel`. */
export const LEGACY_SIZE_LABELS = {
  SMALL: 'MVE 2/8',
  MEDIUM: 'MVE 4/16',
  LARGE: 'MVE 8/32',
  X_LARGE_16: 'MVE 16/64',
  X_LARGE_32: 'MVE 32/128',
} as const satisfies Record<string, SizeLabel>;
export type LegacySize = keyof typeof LEGACY_SIZE_LABELS;

/** Any `MVE <vCPU>/<GB>` label: catalogs offer sizes beyond the documented five (e.g. `MVE 12/48`). */
export const SIZE_LABEL_PATTERN = /^MVE [1-9]\d*\/[1-9]\d*$/;

export function isDocumentedSize(label: string): label is SizeLabel {
  return (SIZE_LABELS as readonly string[]).includes(label);
}

export function isLegacySize(value: string): value is LegacySize {
  return Object.hasOwn(LEGACY_SIZE_LABELS, value);
}
