/**
 * Each run's admission (activities/order/admission-activity.ts) against a real PostgreSQL: what the workers believe of
 * a run is what the API registered and what the server says of the run, never what the input claims.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import anyTest, { type TestFn } from 'ava';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createAdmissionActivity } from '../../activities/order/admission-activity.js';
import { AdmittedRuns } from '../../activities/order/run-guard.js';
import { Keyring } from '../../codec/index.js';
import { checkOrderRequest, redactOrderRequest } from '../../domain/index.js';
import { createRepository, ticketFingerprint, type Repository } from '../../infra/db/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import type { BeginRunAnswer, BeginRunInput, GoverningPolicy } from '../../workflows/order/activity-types.js';
import { sealCarried } from '../../workflows/order/carried-seal.js';
import { newProgress } from '../../workflows/order/progress.js';
import type { OrderRequest } from '../../schemas/index.js';
import type { ProvisioningPlan } from '../../domain/lifecycle/index.js';
import { usePostgres } from '../helpers/postgres.js';
import { sydneyRequest, TEST_POLICIES } from '../helpers/orders.js';

const test = anyTest as TestFn<{ repository: Repository }>;
const pg = usePostgres(test);
const actionKeys = Keyring.fromText(`test:${randomBytes(32).toString('base64')}`, 'test', 'action keys');
const [key] = actionKeys.exportEntries();
const POLICY: GoverningPolicy = { version: 'test-1', hash: 'a'.repeat(64), policy: TEST_POLICIES.staging };

test.before(async (t) => {
  t.context.repository = createRepository((await pg.database()).sql);
});

const requestOf = (ticketId: string): OrderRequest =>
  checkOrderRequest(sydneyRequest(ticketId), { kindMap: SIM_KIND_MAP }).request!;

async function register(repository: Repository, ticketId: string, request = requestOf(ticketId)) {
  await repository.registerTicket({
    ticketId,
    workflowId: `mve-order-${ticketId}`,
    environment: 'staging',
    requestedBy: 'alice',
    submittedBy: 'alice',
    fingerprint: ticketFingerprint(actionKeys, actionKeys.currentKeyId, request)!,
    fingerprintKeyId: actionKeys.currentKeyId,
  });
  return request;
}

function begin(
  repository: Repository,
  ticketId: string,
  runId: string,
  input: BeginRunInput,
  provisioning?: ProvisioningPlan,
): Promise<BeginRunAnswer> {
  const { beginRun } = createAdmissionActivity({
    repository,
    admittedRuns: new AdmittedRuns(repository),
    actionKeys,
    loadApprovalPolicy: () => Promise.resolve(POLICY),
    ...(provisioning ? { provisioning } : {}),
  });
  return new MockActivityEnvironment({ workflowExecution: { workflowId: `mve-order-${ticketId}`, runId } }).run(
    beginRun,
    input,
  );
}

test('a first run claims its registered ticket and gets the policy; a second chain is refused and kept', async (t) => {
  const { repository } = t.context;
  const request = await register(repository, 'ADM-1');
  const first = randomUUID();
  const admitted = await begin(repository, 'ADM-1', first, { request, submittedBy: 'alice', firstRunId: first });
  t.deepEqual(admitted, { admitted: true, policy: POLICY });
  t.is((await repository.getTicketByWorkflow('mve-order-ADM-1'))?.claimedRunId, first);
  t.deepEqual(await begin(repository, 'ADM-1', first, { request, submittedBy: 'alice', firstRunId: first }), admitted);

  const other = randomUUID();
  const refused = await begin(repository, 'ADM-1', other, { request, submittedBy: 'alice', firstRunId: other });
  t.deepEqual(refused, {
    admitted: false,
    reason: `the ticket belongs to the workflow run ${first} (this is another chain of runs)`,
  });
  const [kept] = await repository.listRefusedRuns({ workflowId: 'mve-order-ADM-1' });
  t.like(kept, { runId: other, reason: refused.admitted ? '' : refused.reason });
});

test("a new order is given the worker's provisioning plan; none when the worker does not follow products", async (t) => {
  const { repository } = t.context;
  const plan: ProvisioningPlan = {
    firstPollMs: 15_000,
    maxPollMs: 300_000,
    reminderMs: 1_800_000,
    deadlineMs: 7_200_000,
  };
  const request = await register(repository, 'ADM-PLAN');
  const run = randomUUID();
  t.deepEqual(await begin(repository, 'ADM-PLAN', run, { request, submittedBy: 'alice', firstRunId: run }, plan), {
    admitted: true,
    policy: POLICY,
    provisioning: plan,
  });
  const off = await register(repository, 'ADM-NOPLAN');
  const other = randomUUID();
  const answer = await begin(repository, 'ADM-NOPLAN', other, {
    request: off,
    submittedBy: 'alice',
    firstRunId: other,
  });
  t.deepEqual(answer, { admitted: true, policy: POLICY }, 'MVE_FOLLOW_PROVISIONING=false: the order ends at BOUGHT');
});

test('a run is refused for an unregistered ticket, another request or another submitter', async (t) => {
  const { repository } = t.context;
  const run = () => randomUUID();
  const none = run();
  t.like(await begin(repository, 'ADM-NONE', none, { request: requestOf('ADM-NONE'), firstRunId: none }), {
    admitted: false,
    reason: 'no ticket was registered for this workflow by the order API',
  });
  const request = await register(repository, 'ADM-2');
  const rewritten = { ...request, mveLabel: 'mallory' };
  const a = run();
  t.like(await begin(repository, 'ADM-2', a, { request: rewritten, submittedBy: 'alice', firstRunId: a }), {
    admitted: false,
    reason: 'its request is not the one the order API registered for the ticket',
  });
  await register(repository, 'ADM-3');
  const b = run();
  t.like(await begin(repository, 'ADM-3', b, { request: requestOf('ADM-3'), submittedBy: 'mallory', firstRunId: b }), {
    admitted: false,
    reason: 'its submitter is not the one the order API registered for the ticket',
  });
});

test('carried state is believed only from the claiming chain, continued, and sealed by the run before', async (t) => {
  const { repository } = t.context;
  const request = await register(repository, 'ADM-4');
  const first = randomUUID();
  await begin(repository, 'ADM-4', first, { request, submittedBy: 'alice', firstRunId: first });
  const progress = { ...newProgress(), state: 'AWAITING_APPROVAL' as const, seq: 7 };
  const continuation = { workflowId: 'mve-order-ADM-4', firstRunId: first, fromRunId: first };
  const seal = sealCarried(key, continuation, progress);
  const next = randomUUID();
  const carriedInput = (carried: BeginRunInput['carried'], overrides: Partial<BeginRunInput> = {}): BeginRunInput => ({
    request,
    submittedBy: 'alice',
    firstRunId: first,
    continuedFromRunId: first,
    carried,
    ...overrides,
  });

  t.deepEqual(await begin(repository, 'ADM-4', next, carriedInput({ progress, seal })), { admitted: true });
  const refusedBecause = async (input: BeginRunInput) => {
    const answer = await begin(repository, 'ADM-4', randomUUID(), input);
    return answer.admitted ? 'admitted' : answer.reason;
  };
  t.is(
    await refusedBecause(carriedInput({ progress: { ...progress, state: 'APPROVED' }, seal })),
    'the carried state does not match its seal (altered, or sealed for another order or run)',
  );
  t.is(await refusedBecause(carriedInput({ progress })), 'the carried state is not sealed by the run that continued');
  t.is(
    await refusedBecause(carriedInput({ progress, seal }, { continuedFromRunId: randomUUID() })),
    'the carried state does not match its seal (altered, or sealed for another order or run)',
  );
  t.is(
    await refusedBecause(carriedInput({ progress, seal: { ...seal, keyId: 'elsewhere' } })),
    'the carried state is sealed with key "elsewhere", which the workers do not hold',
  );
  const notContinued = carriedInput({ progress, seal });
  delete notContinued.continuedFromRunId;
  t.is(await refusedBecause(notContinued), 'it carries state but did not continue from another run');
  t.regex(
    await refusedBecause(carriedInput({ progress, seal }, { firstRunId: randomUUID() })),
    /another chain of runs/,
  );
});

test('a run of an order cancelled before any worker started it is refused, and says why', async (t) => {
  const { repository } = t.context;
  const request = await register(repository, 'ADM-CANCELLED');
  t.deepEqual(
    await repository.cancelUnstartedOrder({
      workflowId: 'mve-order-ADM-CANCELLED',
      actor: 'alice',
      reason: 'no longer',
    }),
    { cancelled: true },
  );
  const first = randomUUID();
  const answer = await begin(repository, 'ADM-CANCELLED', first, { request, submittedBy: 'alice', firstRunId: first });
  t.false(answer.admitted);
  t.regex((answer as { reason: string }).reason, /cancelled through the API at .*, before any worker started it/);
  t.is((await repository.getTicketByWorkflow('mve-order-ADM-CANCELLED'))?.claimedRunId, null, 'no claim taken');
  t.deepEqual(
    await repository.cancelUnstartedOrder({ workflowId: 'mve-order-ADM-CANCELLED', actor: 'alice', reason: 'again' }),
    { cancelled: false },
    'once',
  );
});

test('the chain is one line of runs: a reset copy of its first run or of a continued run is refused, and kept', async (t) => {
  const { repository } = t.context;
  const request = await register(repository, 'ADM-RESET');
  const first = randomUUID();
  const firstInput = { request, submittedBy: 'alice', firstRunId: first };
  t.true((await begin(repository, 'ADM-RESET', first, firstInput)).admitted);
  t.true((await begin(repository, 'ADM-RESET', first, firstInput)).admitted, 'its workflow task retried');

  // `temporal workflow reset` to the first workflow task: a new run id, the first run's start copied.
  const copy = randomUUID();
  t.deepEqual(await begin(repository, 'ADM-RESET', copy, firstInput), {
    admitted: false,
    reason: `it is a copy of the chain's first run ${first} (a reset): a reset does not take an order back`,
  });

  const progress = { ...newProgress(), state: 'AWAITING_APPROVAL' as const, seq: 7 };
  const seal = sealCarried(key, { workflowId: 'mve-order-ADM-RESET', firstRunId: first, fromRunId: first }, progress);
  const continued = { ...firstInput, continuedFromRunId: first, carried: { progress, seal } };
  const second = randomUUID();
  t.true((await begin(repository, 'ADM-RESET', second, continued)).admitted);
  // A reset of the continued run copies its start: the same continuation, sealed as well, under another run id.
  const secondCopy = randomUUID();
  const refused = await begin(repository, 'ADM-RESET', secondCopy, continued);
  t.deepEqual(refused, {
    admitted: false,
    reason: `run ${second} already continues the chain after ${first}; this one is a copy made by a reset`,
  });
  t.deepEqual(
    (await repository.listRefusedRuns({ workflowId: 'mve-order-ADM-RESET' })).map((run) => run.runId).sort(),
    [copy, secondCopy].sort(),
  );
});

test('once the records say the order ended, no new run of its chain is admitted', async (t) => {
  const { repository } = t.context;
  const request = await register(repository, 'ADM-ENDED');
  await repository.recordOrderReceived({
    workflowId: 'mve-order-ADM-ENDED',
    ticketId: 'ADM-ENDED',
    environment: 'staging',
    requestedBy: 'alice',
    request: redactOrderRequest(request),
  });
  const first = randomUUID();
  t.true((await begin(repository, 'ADM-ENDED', first, { request, submittedBy: 'alice', firstRunId: first })).admitted);
  await repository.recordTransition({
    workflowId: 'mve-order-ADM-ENDED',
    sequence: 1,
    from: 'RECEIVED',
    to: 'CANCELLED',
    actor: 'alice',
    reason: 'no longer needed',
  });
  const progress = { ...newProgress(), state: 'AWAITING_APPROVAL' as const, seq: 7 };
  const seal = sealCarried(key, { workflowId: 'mve-order-ADM-ENDED', firstRunId: first, fromRunId: first }, progress);
  const next = randomUUID();
  const answer = await begin(repository, 'ADM-ENDED', next, {
    request,
    submittedBy: 'alice',
    firstRunId: first,
    continuedFromRunId: first,
    carried: { progress, seal },
  });
  t.deepEqual(answer, {
    admitted: false,
    reason: 'the records say the order has ended (CANCELLED): no run takes it on again',
  });
  t.true(
    (await begin(repository, 'ADM-ENDED', first, { request, submittedBy: 'alice', firstRunId: first })).admitted,
    'the run admitted before goes on (its workflow task retried)',
  );
});
