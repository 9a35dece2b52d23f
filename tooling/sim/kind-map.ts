/**
 * Which appliance kinds each image family of the simulated catalog is. The real API knows this of its own
 * images; the simulator keeps it as data, so the catalog it serves and the rules it applies to an order
 * agree. The entries have the shape of the engine's kind-map file (docs/order-request.md), so tests and
 * `mve-orders dev` can hand SIM_KIND_MAP to the engine as its kind map.
 */
import type { SimKindId } from './appliance-kinds.js';

export interface SimKindMapEntry {
  vendor: string;
  product: string;
  /** Several kinds: the family has several modes, and the supplied vendorConfig fields tell which. */
  kinds: readonly SimKindId[];
  note?: string;
}

export type SimKindMap = readonly SimKindMapEntry[];

/**
 * The families the simulated catalog offers, in the order their image ids are given out. They are the
 * families the engine's default kind map names, plus Stonewall vFirewall for K5, a kind the spec names
 * no image for: an engine that orders it needs that entry in its kind-map override (MVE_KIND_MAP), as it
 * would for any family it does not know.
 */
export const SIM_KIND_MAP: SimKindMap = [
  { vendor: '6WIND', product: 'VSR', kinds: ['K1'] },
  {
    vendor: 'Cisco',
    product: 'C8000',
    kinds: ['K1', 'K4'],
    note: 'sshPublicKey in autonomous mode, cloudInit in SD-WAN mode',
  },
  { vendor: 'VMware', product: 'SD-WAN Edge', kinds: ['K2'] },
  { vendor: 'Aruba', product: 'EdgeConnect SD-WAN', kinds: ['K3'] },
  { vendor: 'Aviatrix', product: 'Edge', kinds: ['K4'] },
  { vendor: 'Cisco', product: 'FTDv', kinds: ['K6'] },
  { vendor: 'Meraki', product: 'vMX', kinds: ['K7'] },
  { vendor: 'F5', product: 'BIG-IP', kinds: ['K8'] },
  { vendor: 'Fortinet', product: 'FortiGate-VM', kinds: ['K9'] },
  { vendor: 'Juniper', product: 'Session Smart Router', kinds: ['K10'] },
  { vendor: 'Juniper', product: 'vSRX', kinds: ['K11'] },
  { vendor: 'Netskope', product: 'One Edge', kinds: ['K12'] },
  { vendor: 'OPNsense', product: 'OPNsense', kinds: ['K13'] },
  { vendor: 'Peplink', product: 'FusionHub', kinds: ['K14'] },
  { vendor: 'Palo Alto', product: 'Prisma SD-WAN ION 3000v', kinds: ['K15A'], note: 'model A' },
  { vendor: 'Palo Alto', product: 'Prisma SD-WAN ION 7108v', kinds: ['K15B'], note: 'model B' },
  { vendor: 'Palo Alto', product: 'VM-Series', kinds: ['K16'] },
  { vendor: 'Versa', product: 'FlexVNF', kinds: ['K17'] },
  { vendor: 'Stonewall', product: 'vFirewall', kinds: ['K5'], note: 'simulator-only family for K5' },
];

/** The kinds of an image family; vendor and product compare without regard to case or surrounding spaces. */
export function kindsOfFamily(map: SimKindMap, vendor: string, product: string): readonly SimKindId[] | undefined {
  const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  return map.find((entry) => same(entry.vendor, vendor) && same(entry.product, product))?.kinds;
}
