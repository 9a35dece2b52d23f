-- The approval round an order waits in, kept on the order: the approvers' inbox lists the waiting orders oldest
-- first from one index, instead of looking up the newest AWAITING_APPROVAL event of every waiting order and
-- sorting them all (seconds with thousands waiting). Set with each transition to AWAITING_APPROVAL; read only
-- while the order's status is AWAITING_APPROVAL.
ALTER TABLE orders ADD COLUMN awaiting_since timestamptz;
ALTER TABLE orders ADD COLUMN approval_round jsonb;

UPDATE orders o
SET awaiting_since = round.at, approval_round = round.details
FROM (
  SELECT DISTINCT ON (workflow_id) workflow_id, at, details
  FROM order_events
  WHERE to_status = 'AWAITING_APPROVAL'
  ORDER BY workflow_id, sequence DESC
) round
WHERE round.workflow_id = o.workflow_id AND o.status = 'AWAITING_APPROVAL';

CREATE INDEX orders_awaiting_approval_idx ON orders (awaiting_since, workflow_id) WHERE status = 'AWAITING_APPROVAL';
