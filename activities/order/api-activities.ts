import { ApplicationFailure } from '@temporalio/activity';
import { ApiAuthenticationError, ApiError, type ApiClient } from '../../infra/ordering-api/index.js';
import type { CatalogLookups } from '../../infra/catalog/index.js';
import type { BuyAttemptRecord, OrderView, Repository } from '../../infra/db/index.js';
import { withinTime } from '../../infra/within-time.js';
import {
  buildOrder,
  LEGACY_SIZE_LABELS,
  orderIdOfWorkflow,
  productNameOf,
  resolveOrderKind,
  type KindMap,
} from '../../domain/index.js';
import type { OrderRequest } from '../../schemas/index.js';
import { refusal, summaryOf, toApplicationFailure } from './failures.js';
import { buyRefusal, type BuyEvidenceDeps } from './buy-evidence.js';
import { BuyIntentRefused, type JournalWriter } from './journal-writer.js';
import { currentRun, type RecentOrderRequests, type RunReference } from './order-requests.js';
import { sealQuote } from './quote-seal.js';
import { verdictOnResolvedProduct } from './resolved-product.js';
import type {
  BuyAnswer,
  BuyOutcome,
  BuyTargets,
  BuyInput,
  Environment,
  JournalEntry,
  OrderActivities,
  ProductRecord,
} from '../../workflows/order/activity-types.js';

export interface ApiActivityDeps extends Omit<BuyEvidenceDeps, 'repository'> {
  /** The API client of each environment this worker serves (one key, one environment). */
  clients: Partial<Record<Environment, ApiClient>>;
  catalog: CatalogLookups;
  kindMap: KindMap;
  now: () => number;
  /** Reads the request of the order run an activity works for (the buy's input does not carry it); the validation keeps it. */
  orderRequests: RecentOrderRequests;
  /** Writes the order's journal: the buy writes the batch it is given (its write-ahead record) before it sends. */
  writeJournal: JournalWriter;
  /**
   * Where the buy claims its attempt just before sending (see `claimBuyForSending`), and reads it back when the claim
   * or its intent is refused (see `ranBefore`).
   */
  repository: Pick<
    Repository,
    'claimBuyForSending' | 'getOrder' | 'buyEvidence' | 'listApprovers' | 'recordWorkerQuote' | 'recordRefusedCall'
  >;
}

/**
 * How long the buy waits for its journal to be written before it gives up and sends nothing (well within its
 * workflow task's timeout): the workflow then writes the journal with its own, retried activity and buys after it.
 */
export const BUY_JOURNAL_TIMEOUT_MS = 10_000;

type ApiActivities = Pick<
  OrderActivities,
  'lookUpLocation' | 'lookUpImage' | 'validateOrder' | 'buyOrder' | 'readProduct' | 'checkResolvedProduct'
>;

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

  /**
   * The order exactly as it will be sent; the same request and targets always build the same order. The product is
   * named after the order this activity runs for (its workflow, from the activity's context).
   */
  function build(request: OrderRequest, targets: BuyTargets) {
    return buildOrder(request, { id: targets.location.id }, targets.image, {
      kindMap: deps.kindMap,
      orderId: orderIdOfWorkflow(currentRun().workflowId),
    });
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
    async lookUpLocation({ environment, request }) {
      return retriable(async () => {
        const found = await deps.catalog.findLocation(environment, request.location);
        if (!found.ok) throw refusal('OrderTargetNotFound', 'the catalog cannot serve this order', found.issues);
        const { id, name, metro, country } = found.value;
        return { location: { id, name, metro, country }, warnings: found.warnings.map(described) };
      });
    },

    async lookUpImage({ environment, request }) {
      return retriable(async () => {
        const size = request.size ?? (request.productSize ? LEGACY_SIZE_LABELS[request.productSize] : undefined);
        const found = await deps.catalog.findImage(environment, request.image, size);
        if (!found.ok) throw refusal('OrderTargetNotFound', 'the catalog cannot serve this order', found.issues);
        const { id, vendor, product, version } = found.value;
        const { kind, warnings } = resolveOrderKind(request, found.value, { kindMap: deps.kindMap });
        return {
          image: { id, vendor, product, version },
          kind,
          warnings: [...found.warnings, ...warnings].map(described),
        };
      });
    },

    async readProduct({ environment, technicalServiceUid }) {
      return retriable(async () => {
        const read = await clientFor(environment).readProduct(technicalServiceUid);
        return read.found
          ? { found: true, provisioningStatus: read.product.provisioningStatus }
          : { found: false, status: read.status };
      });
    },

    async checkResolvedProduct({ environment, technicalServiceUid }) {
      // The order and the name its buy gave the product come from this run (its context and start input), not the input.
      const run = currentRun();
      return retriable(async () => {
        const orderId = orderIdOfWorkflow(run.workflowId);
        const productName = productNameOf(await deps.orderRequests.requestOf(run), orderId);
        const read = await clientFor(environment).readProduct(technicalServiceUid);
        return verdictOnResolvedProduct(read, technicalServiceUid, { orderId, productName });
      });
    },

    async validateOrder({ environment, request, targets }) {
      const run = currentRun();
      // A buy may follow: it reads the request from here instead of from the run's history.
      deps.orderRequests.keep(run, request);
      return retriable(async () => {
        const response = await clientFor(environment).validate(build(request, targets).validateBody);
        const result = response.data[0];
        if (!result) {
          throw ApplicationFailure.nonRetryable(
            'the API passed the validation but returned no price',
            'ApiInvalidResponse',
          );
        }
        const quote = { monthlyRate: result.price.monthlyRate, currency: result.price.currency.trim().toUpperCase() };
        // The buy pays only a price a worker was quoted: kept, sealed, before the workflow hears of it.
        const sealed = { workflowId: run.workflowId, ...quote, quotedAt: new Date(deps.now()) };
        await deps.repository.recordWorkerQuote({ ...run, ...sealed, seal: sealQuote(deps.actionKeys, sealed) });
        return {
          monthlyRate: result.price.monthlyRate,
          currency: result.price.currency,
          ...(result.productUid ? { productUid: result.productUid } : {}),
        };
      });
    },

    buyOrder: (input) => buy(input),
  };

  async function buy(input: BuyInput): Promise<BuyAnswer> {
    const run = currentRun();
    if (input.journal.length) {
      try {
        // The write-ahead rule: the attempt's intent is in Postgres before the request can leave.
        await writeJournalInTime(run, input.journal);
      } catch (error) {
        return (
          (error instanceof BuyIntentRefused && (await ranBefore(run, input))) || {
            outcome: 'unrecorded',
            error: summaryOf(error),
          }
        );
      }
    }
    let order: OrderRequest;
    let refusal: string | undefined;
    try {
      order = await deps.orderRequests.requestOf(run);
      refusal = await buyRefusal(deps, run, order);
    } catch (error) {
      // Nothing was sent: the request or the records could not be read (Temporal or the database unreachable).
      return { outcome: 'not-created', retryable: true, error: summaryOf(error) };
    }
    if (refusal) return refused(run, refusal);
    let client: ApiClient;
    let envelope;
    try {
      client = clientFor(order.environment);
      envelope = build(order, input.targets).buyEnvelope;
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
    try {
      // Claimed last, right before it leaves: a workflow whose buy activity was lost can then tell whether it did.
      const { claimed } = await deps.repository.claimBuyForSending({
        workflowId: run.workflowId,
        attempt: input.attempt,
      });
      if (!claimed) {
        return (
          (await ranBefore(run, input)) || {
            outcome: 'not-created',
            retryable: false,
            error: {
              type: 'BuyNotClaimed',
              message: `attempt ${input.attempt} has no open buy intent (closed, ended or never recorded): not sending`,
            },
          }
        );
      }
    } catch (error) {
      // Nothing was sent: the database did not answer.
      return { outcome: 'not-created', retryable: true, error: summaryOf(error) };
    }
    let product: ProductRecord;
    try {
      const response = await client.buy(envelope);
      const item = response.data[0];
      if (!item) {
        return {
          outcome: 'uncertain',
          error: { type: 'ApiInvalidResponse', message: 'the API accepted the buy but returned no product' },
        };
      }
      product = {
        technicalServiceUid: item.technicalServiceUid,
        provisioningStatus: item.provisioningStatus ?? 'UNKNOWN',
        ...(item.serviceName ? { serviceName: item.serviceName } : {}),
        ...(typeof item.contractTermMonths === 'number' ? { contractTermMonths: item.contractTermMonths } : {}),
      };
    } catch (error) {
      if (!(error instanceof ApiError) || error.outcomeUnknown)
        return { outcome: 'uncertain', error: summaryOf(error) };
      if (!error.retrySafe) return { outcome: 'not-created', retryable: false, error: summaryOf(error) };
      const retryAfterMs = error.toJSON().retryAfterMs;
      return {
        outcome: 'not-created',
        retryable: true,
        error: summaryOf(error),
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
    }
    return {
      outcome: 'created',
      product,
      journal: await recordCreated(run, input.attempt, product, input.recordCreated),
    };
  }

  /** A buy the records do not prove: nothing is sent, the refusal is kept, and the order is told why. */
  async function refused(run: RunReference, reason: string): Promise<BuyOutcome> {
    await deps.repository
      .recordRefusedCall({ ...run, activity: 'buyOrder', reason })
      .catch(() => undefined /* the refusal stands; the order's journal records it too */);
    return {
      outcome: 'not-created',
      retryable: false,
      error: { type: 'BuyRefused', message: `not buying: ${reason}` },
    };
  }

  /**
   * Uncertain when this run's attempt was claimed for sending already: a buy run in its workflow task (a local
   * activity) is run again when that task is retried after its worker was lost, and its first run may have sent the
   * request. It is never sent again; ops settle it (BUY_UNCERTAIN). When that first run recorded what it created, the
   * records say so: the product is taken from there, with the entries it wrote in this run's reserved numbers.
   */
  async function ranBefore(
    run: RunReference,
    { attempt, recordCreated }: Pick<BuyInput, 'attempt' | 'recordCreated'>,
  ): Promise<BuyOutcome | undefined> {
    let order;
    try {
      order = await deps.repository.getOrder(run.workflowId);
    } catch (error) {
      // Which it was cannot be told now: not sending, and not saying it was never sent either.
      return {
        outcome: 'uncertain',
        error: {
          type: 'BuyRanBefore',
          message: `buy attempt ${attempt} was refused and could not be read back (${summaryOf(error).message}): not sending it`,
        },
      };
    }
    const earlier = order?.buyAttempts.find((recorded) => recorded.attempt === attempt);
    if (!order || !earlier || earlier.sentAt === null || earlier.runId !== run.runId) return undefined;
    const recorded = recordedCreation(order, earlier, recordCreated);
    if (recorded) return recorded;
    const outcome =
      earlier.outcome === null
        ? 'may have been sent'
        : `ended as ${earlier.outcome}${earlier.technicalServiceUid ? ` (${earlier.technicalServiceUid})` : ''}`;
    return {
      outcome: 'uncertain',
      error: {
        type: 'BuyRanBefore',
        message: `buy attempt ${attempt} was claimed for sending by an earlier run of this buy, and ${outcome}: not sending it again`,
      },
    };
  }

  /** The buy's journal writes, which give up after `BUY_JOURNAL_TIMEOUT_MS`. */
  function writeJournalInTime(run: RunReference, entries: JournalEntry[]): Promise<void> {
    return withinTime(deps.writeJournal(run, entries), BUY_JOURNAL_TIMEOUT_MS, 'the journal was not written in time');
  }

  /**
   * What a created MVE adds to the order's journal, written when the database answers in time. Never thrown: the MVE
   * exists whatever the records say, so a write that fails leaves the entries to the workflow's own journal.
   */
  async function recordCreated(
    run: RunReference,
    attempt: number,
    product: ProductRecord,
    reserved: BuyInput['recordCreated'],
  ): Promise<{ entries: JournalEntry[]; written: boolean }> {
    const entries = createdEntries(attempt, product, reserved, Date.now());
    try {
      await writeJournalInTime(run, entries);
      return { entries, written: true };
    } catch {
      return { entries, written: false };
    }
  }
}

/** The entries of a created MVE, in the numbers the workflow reserved for them: its outcome, the product, BOUGHT. */
export function createdEntries(
  attempt: number,
  product: ProductRecord,
  { seq, actor }: BuyInput['recordCreated'],
  at: number,
): JournalEntry[] {
  return [
    { type: 'buy-outcome', seq: seq + 1, at, attempt, outcome: 'created', product },
    { type: 'product', seq: seq + 2, at, product, actor },
    {
      type: 'transition',
      seq: seq + 3,
      at,
      from: 'BUYING',
      to: 'BOUGHT',
      actor,
      reason: `created ${product.technicalServiceUid} (${product.provisioningStatus})`,
    },
  ];
}

/**
 * A created MVE an earlier run of this buy recorded in the numbers reserved now (the same workflow task, run again):
 * the attempt, the order's product and its move to BOUGHT all agree, so it is bought, and nothing is written again.
 */
function recordedCreation(
  order: OrderView,
  earlier: BuyAttemptRecord,
  reserved: BuyInput['recordCreated'],
): Extract<BuyOutcome, { outcome: 'created' }> | undefined {
  const uid = earlier.technicalServiceUid;
  const bought = order.events.find((event) => event.sequence === reserved.seq + 3);
  if (
    earlier.outcome !== 'created' ||
    uid === null ||
    order.order.product?.technicalServiceUid !== uid ||
    bought?.from !== 'BUYING' ||
    bought.to !== 'BOUGHT'
  ) {
    return undefined;
  }
  const product = { technicalServiceUid: uid, provisioningStatus: order.order.product.provisioningStatus };
  const entries = createdEntries(earlier.attempt, product, reserved, Date.parse(bought.at));
  return { outcome: 'created', product, journal: { entries, written: true } };
}

/** A warning as a person reads it: where, and what. */
function described(warning: { path: string; message: string }): string {
  return `${warning.path}: ${warning.message}`;
}

export type { ApiActivities };
