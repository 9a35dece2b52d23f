-- The approval that commits a team's money (docs/approval-policy.md, "Teams and budgets"): one row per order, written
-- by the workers in the same transaction as the budget check, under a lock per environment and team, so two approvals
-- landing at once cannot both fit into the same remaining budget. An order approved again (a rise on a new quote)
-- replaces its row. The commitments read counts approvals from here, so the figures shown are the figures checked.
CREATE TABLE budget_commitments (
  workflow_id  text PRIMARY KEY REFERENCES orders (workflow_id) ON DELETE CASCADE,
  environment  order_environment NOT NULL,
  -- Null: the order is charged to no team (nothing to check).
  team         text CHECK (team ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
  currency     text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  monthly_rate numeric NOT NULL CHECK (monthly_rate >= 0),
  committed_at timestamptz NOT NULL DEFAULT now(),
  -- The tier whose approvals committed it; null when the policy approved it on its own (below the auto-approve line).
  tier         text,
  over_budget  boolean NOT NULL DEFAULT false,
  -- The figures the check saw (a BudgetFit); null when there was no budget to check it against.
  fit          jsonb
);

CREATE INDEX budget_commitments_by_team ON budget_commitments (environment, team, currency, committed_at);

-- Orders approved before this table: their latest approval commits their current quote, at the tier of their latest
-- round (none when no round opened), so the figures do not jump when the read moves here.
INSERT INTO budget_commitments (workflow_id, environment, team, currency, monthly_rate, committed_at, tier)
SELECT o.workflow_id, o.environment, o.team, o.quote_currency, o.quote_monthly_rate, a.at, r.tier
FROM orders o
JOIN LATERAL (SELECT max(e.at) AS at FROM order_events e
              WHERE e.workflow_id = o.workflow_id AND e.to_status = 'APPROVED') a ON a.at IS NOT NULL
LEFT JOIN LATERAL (SELECT e.details ->> 'tier' AS tier FROM order_events e
                   WHERE e.workflow_id = o.workflow_id AND e.to_status = 'AWAITING_APPROVAL' AND e.at <= a.at
                   ORDER BY e.sequence DESC LIMIT 1) r ON true
WHERE o.status IN ('APPROVED', 'VALIDATING', 'BUYING', 'BUY_UNCERTAIN', 'BOUGHT', 'PROVISIONING', 'LIVE',
                   'PROVISIONING_FAILED', 'PROVISIONING_STALLED')
  AND o.quote_currency ~ '^[A-Z]{3}$' AND o.quote_monthly_rate >= 0;

-- A policy that refuses an order over its team's budget rejects it straight from its validation
-- (domain/lifecycle/order-states.ts).
INSERT INTO order_transitions (from_status, to_status) VALUES ('VALIDATING', 'REJECTED');
