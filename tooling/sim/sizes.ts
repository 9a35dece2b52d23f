/**
 * Instance sizes as spec 2.6 lists them. The catalog (images, variants) is generated from these, and the
 * order checks read an order's size with them.
 */

export const DOCUMENTED_SIZES = ['MVE 2/8', 'MVE 4/16', 'MVE 8/32', 'MVE 16/64', 'MVE 32/128'] as const;
export type DocumentedSize = (typeof DOCUMENTED_SIZES)[number];

/** The deprecated `productSize` names (spec 2.4, 2.6) and the label each one stands for. */
export const LEGACY_SIZE_NAMES: Readonly<Record<string, DocumentedSize>> = {
  SMALL: 'MVE 2/8',
  MEDIUM: 'MVE 4/16',
  LARGE: 'MVE 8/32',
  X_LARGE_16: 'MVE 16/64',
  X_LARGE_32: 'MVE 32/128',
};

/** Real catalogs offer labels beyond the documented five, so any `MVE <vCPU>/<GB>` counts as a label. */
const LABEL = /^MVE ([1-9]\d*)\/([1-9]\d*)$/;

/** vCPU and RAM of a size label, or undefined when the text is not a size label. */
export function readSizeLabel(text: string): { vcpu: number; ramGb: number } | undefined {
  const match = LABEL.exec(text);
  return match ? { vcpu: Number(match[1]), ramGb: Number(match[2]) } : undefined;
}

/** The legacy name for a label, when it has one (for the variants endpoint). */
export function legacyNameOf(label: string): string | undefined {
  return Object.keys(LEGACY_SIZE_NAMES).find((name) => LEGACY_SIZE_NAMES[name] === label);
}
