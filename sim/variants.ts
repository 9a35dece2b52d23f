import { SIZE_LABELS, LEGACY_SIZE_LABELS } from '../schemas/index.js';
import { EXTRA_SIZE_LABEL } from './images.js';

/** The variants endpoint's shape is "not shown" in the spec; the simulator answers one entry per size. */
export interface SimVariant {
  mveLabel: string;
  productSize: string | null;
  cpuCoreCount: number;
  ramGb: number;
}

export function generateVariants(): SimVariant[] {
  const legacyOf = new Map<string, string>(Object.entries(LEGACY_SIZE_LABELS).map(([legacy, label]) => [label, legacy]));
  return [...SIZE_LABELS, EXTRA_SIZE_LABEL].map((label) => {
    const [cpu, ram] = /^MVE (\d+)\/(\d+)$/.exec(label)!.slice(1).map(Number) as [number, number];
    return { mveLabel: label, productSize: legacyOf.get(label) ?? null, cpuCoreCount: cpu, ramGb: ram };
  });
}
