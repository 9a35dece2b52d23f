import anyTest, { type TestFn } from 'ava';
import { usePostgres } from '../helpers/postgres.js';
import { startOrderEngine, sydneyRequest, type OrderEngine } from '../helpers/orders.js';
import { waitForState } from '../helpers/wait.js';
const test = anyTest as TestFn<{ engine: OrderEngine }>;
const pg = usePostgres(test);
test('debug', async (t) => {
  const engine = await startOrderEngine(pg);
  await engine.orders.submit(sydneyRequest('D-1', { size: 'MVE 8/32' }));
  const first = await waitForState(engine.orders, 'D-1', 'AWAITING_APPROVAL');
  await engine.temporal.env.sleep(13 * 3600_000);
  const d = await engine.client.workflow.getHandle('mve-order-D-1').describe();
  console.log('describe', d.status.name);
  console.log('status', (await engine.orders.status('D-1')).state);
  try { await engine.orders.approve('D-1', { approverId: 'fiona', monthlyRate: first.quote!.monthlyRate, currency: 'AUD' }); console.log('approved'); } catch (e) { console.log('ERR', e, (e as any).cause); }
  await engine.stop();
  t.pass();
});
