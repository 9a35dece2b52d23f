import type { z } from 'zod';
import type { historyResponse } from '../../http/schemas.js';
import type { ApiOrder } from '../../orders/index.js';
import type { Html } from '../html.js';
import type { ProviderPortal } from '../portal.js';
import type { ConsoleSession, ConsoleUser } from '../sessions.js';

/** The order's history as `GET /api/v1/orders/{orderId}/history` answers it. */
export type OrderHistory = z.output<typeof historyResponse>;

/** What the order page shows, from what the API answered. */
export interface OrderPageData {
  order: ApiOrder;
  /** `events` (the workflow's history, payloads decoded and redacted) is asked for only for ops and admins. */
  history: OrderHistory | null;
  user: ConsoleUser;
  session: ConsoleSession;
  now: number;
  /** Where ops check the provider's products, when the console was told (in dev, the simulator's state). */
  providerPortal?: ProviderPortal;
}

export interface OrderPageExtras {
  flash?: Html;
  error?: Html;
  /** What the user typed before a refused decision, so it is not lost. */
  comment?: string;
}

/** The currencies the order's prices are in: what `moneyInText` writes as amounts in its reasons and notes. */
export function currenciesOf({ order, history }: OrderPageData): string[] {
  return [
    order.quote?.currency,
    ...(order.quoteHistory ?? []).map((quote) => quote.currency),
    ...(history?.votes ?? []).map((vote) => vote.currency),
  ].filter((currency): currency is string => typeof currency === 'string');
}
