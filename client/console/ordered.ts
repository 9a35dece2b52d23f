/**
 * What an order buys, in words, from its recorded request (recorded with secrets redacted): size, place and term.
 * Only these fields are read; vendorConfig never is.
 */
import { orderWorkflowId } from '../../domain/index.js';
import { isLegacySize, LEGACY_SIZE_LABELS } from '../../schemas/sizes.js';
import type { ApiContext } from '../http/context.js';

export interface OrderedFacts {
  /** The size label ("MVE 8/32"), also for a request that gave the deprecated `productSize`. */
  size?: string;
  /** Months. */
  term?: number;
  /** The location as asked ("Sydney, AU", "location 101"); the order page names the one chosen. */
  place?: string;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

export function orderedFacts(request: Record<string, unknown> | null | undefined): OrderedFacts {
  const r = request ?? {};
  const legacy = text(r['productSize']);
  const size = text(r['size']) ?? (legacy && isLegacySize(legacy) ? LEGACY_SIZE_LABELS[legacy] : undefined);
  const term = typeof r['term'] === 'number' ? r['term'] : undefined;
  const asked = (r['location'] ?? {}) as Record<string, unknown>;
  const id = text(asked['id']);
  const place =
    [text(asked['name']), text(asked['metro']), text(asked['market']), text(asked['country']), id && `location ${id}`]
      .filter(Boolean)
      .join(', ') || undefined;
  return { ...(size ? { size } : {}), ...(term !== undefined ? { term } : {}), ...(place ? { place } : {}) };
}

/**
 * The inbox's facts of each order, read from its recorded request once: a request never changes, and the inbox
 * refreshes every 2 seconds. The API has just listed these orders to the person, as the order page reads the
 * request of an order the API has just shown. Bounded: the oldest entries go first.
 */
export class OrderedFactsCache {
  private readonly facts = new Map<string, OrderedFacts>();

  constructor(
    private readonly repository: Pick<ApiContext['repository'], 'getOrder'>,
    private readonly capacity = 2000,
  ) {}

  async of(orderId: string): Promise<OrderedFacts> {
    const known = this.facts.get(orderId);
    if (known) return known;
    const records = await this.repository.getOrder(orderWorkflowId(orderId));
    const facts = orderedFacts(records?.order.request);
    if (records) {
      if (this.facts.size >= this.capacity) this.facts.delete(this.facts.keys().next().value!);
      this.facts.set(orderId, facts);
    }
    return facts;
  }
}
