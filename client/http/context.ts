import type { Keyring } from '../../codec/index.js';
import type { OrderService } from '../orders/index.js';
import type { Authenticator } from './auth/authenticate.js';

/**
 * What a server is built on, by whoever runs it (`serve`, `dev`, tests): the order service, which alone reaches
 * Temporal and the records for orders, and what HTTP needs of its own. The web console, mounted beside the API, is
 * handed the same context.
 */
export interface ApiContext {
  service: OrderService;
  authenticator: Authenticator;
  /** The payload codec keys: the codec server decodes with them; the console seals its sessions with them. */
  codecKeys: Keyring;
  /** Origins allowed to call the codec server from a browser (the Temporal Web UI). */
  codecCorsOrigins: readonly string[];
  log: (line: string) => void;
}
