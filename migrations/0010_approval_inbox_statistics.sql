-- Statistics on the roles of the round an order waits in. Without them the planner guesses that the inbox's
-- role filter (approval_round->'roles' ?| …) keeps 1 % of the waiting orders, so it reads every order and sorts
-- them instead of walking orders_awaiting_approval_idx oldest first and stopping at the page's end: 2,000 pages
-- for 10,000 waiting orders instead of about 20, and slow once they are not all in shared buffers (docs/scale.md).
-- Expression statistics need PostgreSQL 14 or later; autovacuum's analyze keeps them current.
CREATE STATISTICS orders_approval_round_roles ON (approval_round -> 'roles') FROM orders;
ANALYZE orders;
