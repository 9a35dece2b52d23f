-- When an order's term starts (docs/approval-policy.md, "Teams and budgets"): its first move to BOUGHT, kept on its
-- row so the commitments, the budget check and the renewals read a team's running terms from an index instead of
-- looking up each order's events, ended terms included. Null: never bought.
ALTER TABLE orders ADD COLUMN bought_at timestamptz;

-- Orders bought before this column: their first BOUGHT event.
UPDATE orders o SET bought_at = b.at
FROM (SELECT workflow_id, min(at) AS at FROM order_events WHERE to_status = 'BOUGHT' GROUP BY workflow_id) b
WHERE b.workflow_id = o.workflow_id;

-- From now on, kept by the statement that records the move (the journal's, or any other writer's), in its
-- transaction: the earliest BOUGHT recorded, whatever order the events arrive in. A replayed event is not inserted
-- again (the events' key), so it changes nothing. After the statement, so the journal's own update of the row (its
-- status) has been made.
CREATE FUNCTION orders_keep_bought_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE orders SET bought_at = NEW.at
  WHERE workflow_id = NEW.workflow_id AND (bought_at IS NULL OR bought_at > NEW.at);
  RETURN NULL;
END $$;

CREATE TRIGGER order_events_keep_bought_at AFTER INSERT ON order_events
  FOR EACH ROW WHEN (NEW.to_status = 'BOUGHT') EXECUTE FUNCTION orders_keep_bought_at();

-- An environment's (and team's) terms that may still run: bought after a given moment.
CREATE INDEX orders_bought_by_team ON orders (environment, team, bought_at) WHERE bought_at IS NOT NULL;
