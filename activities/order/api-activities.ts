import { ApplicationFailure, Context } from '@temporalio/activity';
import { ApiAuthenticationError, ApiError, type ApiClient } from '../api/index.js';
import type { CatalogLookups } from '../catalog/index.js';
import { buildOrder, LEGACY_SIZE_LABELS, type KindMap } from '../../domain/index.js';
import type { OrderRequest } from '../../schemas/index.js';
import { refusal, summaryOf, toApplicationFailure } from './failures.js';
import { currentRun, type OrderRequestReader } from './order-requests.js';
import type { BuyOutcome, BuyTargets, Environment, OrderActivities, OrderTargets } from './types.js';

export interface ApiActivityDeps {
  /** The API client of each environment this worker serves (one key, one environment). */
  clients: Partial<Record<Environment, ApiClient>>;
  catalog: CatalogLookups;
  kindMap: KindMap;
  now: () => number;
  /** Reads the request of the order run an activity works for (the buy's input does not carry it). */
  orderRequests: OrderRequestReader;
}

/** How often the buy activity heartbeats while its request is out (the workflow's heartbeat timeout is a few times this). */
export const BUY_HEARTBEAT_MS = 5_000;

type ApiActivities = Pick<OrderActivities, 'refreshApiToken' | 'lookUpOrderTargets' | 'validateOrder' | 'buyOrder'>;

export function createApiActivities(deps: ApiActivityDeps): ApiActivities {
  function clientFor(environment: Environment): ApiClient {
    const client = deps.clients[environment];
    if (!client) {
      throw ApplicationFailure.nonRetryable(
        `this worker has no API key for the ${environment} environment; run a worker configured for ${environment}`,
        'EnvironmentNotConfigured',
      );
    }
    return client;
  }

  /** The order exactly as it will be sent; the same request and targets always build the same order. */
  function build(request: OrderRequest, targets: BuyTargets) {
    return buildOrder(request, { id: targets.location.id }, targets.image, { kindMap: deps.kindMap });
  }

  /** Runs an idempotent step, reporting failures in the shape Temporal retries by. */
  async function retriable<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw toApplicationFailure(error);
    }
  }

  return {
    async refreshApiToken({ environment }) {
      await retriable(async () => {
        await clientFor(environment).tokenProvider.getToken();
      });
    },

    async lookUpOrderTargets({ environment, request }) {
      return retriable(async () => {
        const size = request.size ?? (request.productSize ? LEGACY_SIZE_LABELS[request.productSize] : undefined);
        const [location, image] = await Promise.all([
          deps.catalog.findLocation(environment, request.location),
          deps.catalog.findImage(environment, request.image, size),
        ]);
        const problems = [...(location.ok ? [] : location.issues), ...(image.ok ? [] : image.issues)];
        if (!location.ok || !image.ok) throw refusal('OrderTargetNotFound', 'the catalog cannot serve this order', problems);
        const targets: OrderTargets = {
          location: {
            id: location.value.id,
            name: location.value.name,
            metro: location.value.metro,
            country: location.value.country,
          },
          image: { id: image.value.id, vendor: image.value.vendor, product: image.value.product, version: image.value.version },
          kind: '',
          warnings: [],
        };
        const built = build(request, targets);
        targets.kind = built.kind;
        targets.warnings = [...location.warnings, ...image.warnings, ...built.warnings].map(
          (warning) => `${warning.path}: ${warning.message}`,
        );
        return targets;
      });
    },

    async validateOrder({ environment, request, targets }) {
      return retriable(async () => {
        const response = await clientFor(environment).validate(build(request, targets).validateBody);
        const result = response.data[0];
        if (!result) {
          throw ApplicationFailure.nonRetryable('the API passed the validation but returned no price', 'ApiInvalidResponse');
        }
        return {
          monthlyRate: result.price.monthlyRate,
          currency: result.price.currency,
          ...(result.productUid ? { productUid: result.productUid } : {}),
        };
      });
    },

    async buyOrder(input): Promise<BuyOutcome> {
      let request: OrderRequest;
      try {
        // An input scheduled by the v1 workflow, or before this worker's deploy, still carries the request.
        request = 'request' in input ? input.request : await deps.orderRequests.requestOf(currentRun());
      } catch (error) {
        // Nothing was sent: the request could not be read (Temporal unreachable); worth trying again.
        return { outcome: 'not-created', retryable: true, error: summaryOf(error) };
      }
      let client: ApiClient;
      let envelope;
      try {
        client = clientFor(request.environment);
        envelope = build(request, input.targets).buyEnvelope;
      } catch (error) {
        // Nothing was sent: a missing key or an order that cannot be built is a clean, final "not created".
        return { outcome: 'not-created', retryable: false, error: summaryOf(error) };
      }
      try {
        await client.tokenProvider.getToken();
      } catch (error) {
        // Nothing was sent: a token that cannot be had is a clean "not created", worth retrying unless refused.
        return { outcome: 'not-created', retryable: !(error instanceof ApiAuthenticationError), error: summaryOf(error) };
      }
      // While the request is out, the activity tells Temporal it is alive: a worker killed mid-buy is noticed within
      // the heartbeat timeout (BUY_UNCERTAIN in seconds, not after the 3-minute start-to-close).
      const alive = setInterval(() => Context.current().heartbeat(), BUY_HEARTBEAT_MS);
      try {
        const response = await client.buy(envelope);
        const item = response.data[0];
        if (!item) {
          return {
            outcome: 'uncertain',
            error: { type: 'ApiInvalidResponse', message: 'the API accepted the buy but returned no product' },
          };
        }
        return {
          outcome: 'created',
          product: {
            technicalServiceUid: item.technicalServiceUid,
            provisioningStatus: item.provisioningStatus ?? 'UNKNOWN',
            ...(item.serviceName ? { serviceName: item.serviceName } : {}),
            ...(typeof item.contractTermMonths === 'number' ? { contractTermMonths: item.contractTermMonths } : {}),
          },
        };
      } catch (error) {
        if (!(error instanceof ApiError) || error.outcomeUnknown) return { outcome: 'uncertain', error: summaryOf(error) };
        if (!error.retrySafe) return { outcome: 'not-created', retryable: false, error: summaryOf(error) };
        const retryAfterMs = error.toJSON().retryAfterMs;
        return {
          outcome: 'not-created',
          retryable: true,
          error: summaryOf(error),
          ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        };
      } finally {
        clearInterval(alive);
      }
    },
  };
}

export type { ApiActivities };
