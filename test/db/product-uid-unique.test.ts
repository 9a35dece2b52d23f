/**
 * A product is one order's (migration 0019): the records refuse a second order's claim to a product UID as a conflict
 * that names the product, and the migration refuses to apply over orders that already share one, naming them.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { createRepository, MIGRATIONS_DIRECTORY, RepositoryError, runMigrations } from '../../infra/db/index.js';
import { usePostgres } from '../helpers/postgres.js';

const postgres = usePostgres(test);
const MIGRATION = '0019_product_uid_unique.sql';
const UID = '5b0c6c8e-2f57-4c1e-9a53-1f0f7a1d2c3e';

async function order(repo: ReturnType<typeof createRepository>, ticketId: string): Promise<string> {
  const workflowId = `mve-order-${ticketId}`;
  await repo.recordOrderReceived({ workflowId, ticketId, environment: 'staging', requestedBy: 'rita', request: {} });
  return workflowId;
}

test("a product UID is one order's: another order recording it is a conflict naming it, and changes nothing", async (t) => {
  const { sql } = await postgres.database();
  const repo = createRepository(sql);
  const [first, second, third] = [await order(repo, 'P-1'), await order(repo, 'P-2'), await order(repo, 'P-3')];
  await repo.recordProduct({ workflowId: first, technicalServiceUid: UID, provisioningStatus: 'DEPLOYABLE' });
  // The same order's product again (a journal written again, a status that moved on) is no conflict.
  await repo.recordProduct({ workflowId: first, technicalServiceUid: UID, provisioningStatus: 'LIVE' });

  const error = await t.throwsAsync(
    repo.recordProduct({ workflowId: second, technicalServiceUid: UID, provisioningStatus: 'DEPLOYABLE' }),
    { instanceOf: RepositoryError },
  );
  t.is(error.kind, 'conflict');
  t.regex(error.message, /^recordProduct: a product belongs to one order: another order has this technicalServiceUid/);
  t.true(error.message.includes(UID), error.message);
  t.is((await repo.getOrder(second))!.order.product, null, 'the second order has no product');
  t.like((await repo.getOrder(first))!.order.product, { technicalServiceUid: UID, provisioningStatus: 'LIVE' });

  // Orders without a product, and another product, are not held up.
  const other = 'a9d3e6b1-0c42-4f6e-8b7d-2e5f4c3b1a09';
  await repo.recordProduct({ workflowId: third, technicalServiceUid: other, provisioningStatus: 'DEPLOYABLE' });
  t.like((await repo.getOrder(third))!.order.product, { technicalServiceUid: other });
});

test('0019 refuses orders that already share a product, naming them, and applies once they no longer do', async (t) => {
  const { sql } = await postgres.database({ migrated: false });
  const dir = await mkdtemp(path.join(tmpdir(), 'mve-migrations-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await cp(MIGRATIONS_DIRECTORY, dir, { recursive: true });
  await rm(path.join(dir, MIGRATION));
  await runMigrations(sql, { directory: dir });
  const repo = createRepository(sql);
  const [first, second] = [await order(repo, 'M-1'), await order(repo, 'M-2')];
  for (const workflowId of [first, second])
    await repo.recordProduct({ workflowId, technicalServiceUid: UID, provisioningStatus: 'DEPLOYABLE' });

  await cp(path.join(MIGRATIONS_DIRECTORY, MIGRATION), path.join(dir, MIGRATION));
  const refused = await t.throwsAsync(runMigrations(sql, { directory: dir }), { name: 'MigrationError' });
  t.regex(refused.message, new RegExp(`orders share a product: ${UID} \\(orders ${first}, ${second}\\)`));
  t.regex(refused.message, /clear the others' product_technical_service_uid/);

  await sql`UPDATE orders SET product_technical_service_uid = NULL, product_provisioning_status = NULL
            WHERE workflow_id = ${second}`;
  const run = await runMigrations(sql, { directory: dir });
  t.deepEqual(
    run.applied.map((migration) => migration.name),
    [MIGRATION],
  );
  const error = await t.throwsAsync(
    repo.recordProduct({ workflowId: second, technicalServiceUid: UID, provisioningStatus: 'DEPLOYABLE' }),
  );
  t.is((error as RepositoryError).kind, 'conflict');
});
