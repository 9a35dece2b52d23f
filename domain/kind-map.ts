/**
 * Which appliance kinds an image family allows. The images endpoint reports `vendor` and `product`, not the
 * kind, so this mapping is data: a documented default, overridable by a JSON file (docs/order-request.md).
 * Vendor and product compare case-insensitively, ignoring surrounding spaces.
 */
import { z } from 'zod';
import { KIND_IDS, type KindId } from './kinds.js';

export interface KindMapEntry {
  vendor: string;
  product: string;
  /** Several kinds: the supplied vendorConfig fields pick one (e.g. a router with two modes). */
  kinds: readonly KindId[];
  note?: string;
}

export type KindMap = readonly KindMapEntry[];

/** Environment variable naming a kind-map override file. */
export const KIND_MAP_ENV = 'MVE_KIND_MAP';

export const DEFAULT_KIND_MAP: KindMap = [
  { vendor: '6WIND', product: 'VSR', kinds: ['K1'] },
  {
    vendor: 'Cisco',
    product: 'C8000',
    kinds: ['K1', 'K4'],
    note: 'autonomous mode takes sshPublicKey (K1); SD-WAN mode takes cloudInit (K4)',
  },
  { vendor: 'VMware', product: 'SD-WAN Edge', kinds: ['K2'], note: 'VMware (Arista) SD-WAN edge' },
  { vendor: 'Aruba', product: 'EdgeConnect SD-WAN', kinds: ['K3'] },
  { vendor: 'Aviatrix', product: 'Edge', kinds: ['K4'] },
  { vendor: 'Cisco', product: 'FTDv', kinds: ['K6'] },
  { vendor: 'Meraki', product: 'vMX', kinds: ['K7'] },
  { vendor: 'F5', product: 'BIG-IP', kinds: ['K8'] },
  { vendor: 'Fortinet', product: 'FortiGate-VM', kinds: ['K9'] },
  { vendor: 'Juniper', product: 'Session Smart Router', kinds: ['K10'] },
  {
    vendor: 'Juniper',
    product: 'vSRX',
    kinds: ['K11'],
    note: 'K11/K12 assignment between vSRX and Netskope is unconfirmed',
  },
  {
    vendor: 'Netskope',
    product: 'One Edge',
    kinds: ['K12'],
    note: 'K11/K12 assignment between vSRX and Netskope is unconfirmed',
  },
  { vendor: 'OPNsense', product: 'OPNsense', kinds: ['K13'] },
  { vendor: 'Peplink', product: 'FusionHub', kinds: ['K14'] },
  { vendor: 'Palo Alto', product: 'Prisma SD-WAN ION 3000v', kinds: ['K15A'], note: 'model A: MVE 2/8, 4/16, 8/32' },
  { vendor: 'Palo Alto', product: 'Prisma SD-WAN ION 7108v', kinds: ['K15B'], note: 'model B: MVE 8/32 only' },
  { vendor: 'Palo Alto', product: 'VM-Series', kinds: ['K16'] },
  { vendor: 'Versa', product: 'FlexVNF', kinds: ['K17'] },
];

const kindMapEntrySchema = z.strictObject({
  vendor: z.string().trim().min(1),
  product: z.string().trim().min(1),
  kinds: z.array(z.enum(KIND_IDS)).min(1),
  note: z.string().optional(),
});

/** An override file: a bare array of entries, or `{ "replaceDefaults"?: boolean, "entries": [...] }`. */
export const kindMapFileSchema = z.preprocess(
  (body) => (Array.isArray(body) ? { entries: body } : body),
  z.strictObject({ replaceDefaults: z.boolean().optional(), entries: z.array(kindMapEntrySchema) }),
);
export type KindMapFile = z.infer<typeof kindMapFileSchema>;

const familyKey = (vendor: string, product: string) =>
  `${vendor.trim().toLowerCase()}\u0000${product.trim().toLowerCase()}`;

export function sameFamily(a: { vendor: string; product: string }, b: { vendor: string; product: string }): boolean {
  return familyKey(a.vendor, a.product) === familyKey(b.vendor, b.product);
}

/** Override entries replace base entries of the same family; new families are appended. */
export function mergeKindMap(base: KindMap, override: KindMapFile | readonly KindMapEntry[]): KindMap {
  const entries = Array.isArray(override) ? (override as readonly KindMapEntry[]) : (override as KindMapFile).entries;
  const replaceDefaults = !Array.isArray(override) && (override as KindMapFile).replaceDefaults === true;
  const kept = replaceDefaults
    ? []
    : base.filter((entry) => !entries.some((replacement) => sameFamily(entry, replacement)));
  return [...kept, ...entries];
}

export class KindMapError extends Error {}

/**
 * The override file's text, read and merged onto the default map (pure: the caller reads the file). Throws
 * KindMapError naming the file and the problem.
 */
export function kindMapFromText(text: string, file: string, base: KindMap = DEFAULT_KIND_MAP): KindMap {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new KindMapError(
      `kind map ${file} is not readable JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const parsed = kindMapFileSchema.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues
      .map((entry) => `${entry.path.join('.') || '(file)'}: ${entry.message}`)
      .join('; ');
    throw new KindMapError(
      `kind map ${file} is not valid (${where}); expected [{"vendor","product","kinds":["K1",…]}] or {"entries":[…]}`,
    );
  }
  return mergeKindMap(base, parsed.data);
}

export function kindsForFamily(map: KindMap, vendor: string, product: string): readonly KindId[] | undefined {
  return map.find((entry) => sameFamily(entry, { vendor, product }))?.kinds;
}
