-- Approvers (who may approve, with which roles) and their votes on an order's quote.

CREATE TABLE approvers (
  id           text PRIMARY KEY,
  display_name text NOT NULL,
  roles        text[] NOT NULL DEFAULT '{}',
  active       boolean NOT NULL DEFAULT true,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),

  CONSTRAINT approvers_id_format CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$'),
  CONSTRAINT approvers_display_name_not_blank CHECK (btrim(display_name) <> ''),
  CONSTRAINT approvers_roles_format CHECK (
    array_position(roles, NULL) IS NULL
    AND array_to_string(roles, ',') ~ '^([a-z][a-z0-9._-]*(,[a-z][a-z0-9._-]*)*)?$')
);

CREATE INDEX approvers_roles_idx ON approvers USING gin (roles);

-- One vote per approver per quote: the quote number is chosen by the workflow and grows when a
-- re-validation needs a new approval.
CREATE TABLE approvals (
  workflow_id  text NOT NULL REFERENCES orders (workflow_id) ON DELETE CASCADE,
  quote_number integer NOT NULL,
  approver_id  text NOT NULL REFERENCES approvers (id),
  decision     text NOT NULL,
  -- The quote the approver saw when voting.
  monthly_rate numeric NOT NULL,
  currency     text NOT NULL,
  reason       text,
  at           timestamptz NOT NULL,
  recorded_at  timestamptz NOT NULL DEFAULT now(),

  PRIMARY KEY (workflow_id, quote_number, approver_id),
  CONSTRAINT approvals_quote_number_positive CHECK (quote_number >= 1),
  CONSTRAINT approvals_decision_valid CHECK (decision IN ('approve', 'reject')),
  CONSTRAINT approvals_monthly_rate_not_negative CHECK (monthly_rate >= 0),
  CONSTRAINT approvals_currency_code CHECK (currency ~ '^[A-Z]{3}$')
);

CREATE INDEX approvals_approver_idx ON approvals (approver_id);
