import { EXTRA_SIZE_LABEL } from './images.js';
import { DOCUMENTED_SIZES, legacyNameOf, readSizeLabel } from './sizes.js';

/** The variants endpoint's shape is "not shown" in the spec; the simulator answers one entry per size. */
export interface SimVariant {
  mveLabel: string;
  productSize: string | null;
  cpuCoreCount: number;
  ramGb: number;
}

export function generateVariants(): SimVariant[] {
  return [...DOCUMENTED_SIZES, EXTRA_SIZE_LABEL].map((label) => {
    const { vcpu, ramGb } = readSizeLabel(label)!;
    return { mveLabel: label, productSize: legacyNameOf(label) ?? null, cpuCoreCount: vcpu, ramGb };
  });
}
