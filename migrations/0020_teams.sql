-- Whose money an order spends (docs/approval-policy.md, "Teams and budgets"). The approver directory says which team
-- each person belongs to, and each order records the team the intake charged it to: the request's `costCentre`, else
-- its requester's team here, checked against the teams of its environment's policy. Null: no team (a person without
-- one; an order of a policy without teams, or recorded before teams).
ALTER TABLE approvers
  ADD COLUMN team text,
  ADD CONSTRAINT approvers_team_format CHECK (team ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$');

ALTER TABLE orders
  ADD COLUMN team text,
  ADD CONSTRAINT orders_team_format CHECK (team ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$');
