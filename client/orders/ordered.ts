/**
 * What an order buys, in words, from its recorded request (recorded with secrets redacted): the facts the API shows
 * beside an order and in the approvals inbox. Only these fields are read; vendorConfig never is.
 */
import { isLegacySize, LEGACY_SIZE_LABELS } from '../../schemas/sizes.js';

export interface Ordered {
  productName?: string;
  /** The size label ("MVE 8/32"), also for a request that gave the deprecated `productSize`. */
  size?: string;
  /** Months. */
  term?: number;
  /** The location as asked ("Sydney, AU", "location 101"); the order names the one chosen once looked up. */
  place?: string;
  /** The image as asked ("Cisco C8000 latest", "image 42"); the order names the one chosen once looked up. */
  image?: string;
  diversityZone?: string;
  /** Each vNIC's description ("vNIC 2" where it has none); absent when the request left the vNICs to the provider. */
  vnics?: string[];
}

type Fields = Record<string, unknown>;

function text(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/** A selector as words: its fields in order, then its id (`location 101`). */
function selectorWords(selector: unknown, fields: readonly string[], idWord: string, separator: string) {
  const asked = (selector ?? {}) as Fields;
  const id = text(asked['id']);
  const words = [...fields.map((field) => text(asked[field])), id && `${idWord} ${id}`].filter(Boolean);
  return words.length > 0 ? words.join(separator) : undefined;
}

function vnicsOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return (value as Fields[]).map((vnic, i) => text(vnic?.['description']) ?? `vNIC ${i + 1}`);
}

/** The ordered facts of a recorded request; fields the request lacks are left out. */
export function orderedOf(request: Fields | null | undefined): Ordered {
  const r = request ?? {};
  const legacy = text(r['productSize']);
  const facts: Ordered = {
    productName: text(r['productName']),
    size: text(r['size']) ?? (legacy && isLegacySize(legacy) ? LEGACY_SIZE_LABELS[legacy] : undefined),
    term: typeof r['term'] === 'number' ? r['term'] : undefined,
    place: selectorWords(r['location'], ['name', 'metro', 'market', 'country'], 'location', ', '),
    image: selectorWords(r['image'], ['vendor', 'product', 'version'], 'image', ' '),
    diversityZone: text(r['diversityZone']),
    vnics: vnicsOf(r['vnics']),
  };
  return Object.fromEntries(Object.entries(facts).filter(([, value]) => value !== undefined));
}

/**
 * The ordered facts of orders read live from their workflows, read from the records once per order: a request
 * never changes once recorded. Bounded: the oldest entries go first.
 */
export class OrderedCache {
  private readonly facts = new Map<string, Ordered>();

  constructor(private readonly capacity = 5000) {}

  async of(workflowId: string, request: () => Promise<Fields | null | undefined>): Promise<Ordered | undefined> {
    const known = this.facts.get(workflowId);
    if (known) return known;
    const recorded = await request();
    if (!recorded) return undefined;
    const facts = orderedOf(recorded);
    if (this.facts.size >= this.capacity) this.facts.delete(this.facts.keys().next().value!);
    this.facts.set(workflowId, facts);
    return facts;
  }
}
