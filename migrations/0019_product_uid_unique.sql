-- A product is one order's: no two orders record the same product UID. The workers refuse to settle an uncertain buy
-- with a product the provider does not show under the order's name (docs/security.md, "Settling an uncertain buy");
-- this is the records' own guard, whatever a worker or a person writes.
--
-- Orders that already share a product must be told apart by a person first (the product's name at the provider ends
-- with its order's id): the migration refuses, naming them, and applies nothing until then.
DO $$
DECLARE
  shared text;
BEGIN
  SELECT string_agg(format('%s (orders %s)', uid, holders), '; ' ORDER BY uid) INTO shared
  FROM (SELECT product_technical_service_uid AS uid, string_agg(workflow_id, ', ' ORDER BY workflow_id) AS holders
        FROM orders WHERE product_technical_service_uid IS NOT NULL
        GROUP BY product_technical_service_uid HAVING count(*) > 1) AS taken;
  IF shared IS NOT NULL THEN
    RAISE EXCEPTION 'orders share a product: %. A product belongs to one order: find its order in the provider''s '
      'portal (the product''s name ends with [<order id>]), clear the others'' product_technical_service_uid and '
      'product_provisioning_status, and migrate again', shared;
  END IF;
END $$;

CREATE UNIQUE INDEX orders_product_uid_unique ON orders (product_technical_service_uid)
  WHERE product_technical_service_uid IS NOT NULL;
