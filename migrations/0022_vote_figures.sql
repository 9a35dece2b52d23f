-- The figures an approver was shown when they voted (docs/approval-policy.md, "What approvers see"): the order's team,
-- its run-rate, approved not bought and approved this month in the order's currency, its budget and what would remain
-- after the order, as the HTTP API computed them at the moment it accepted the vote. Kept beside the vote under the
-- vote's own key rather than on its row: the vote's row is written by the worker's journal, a moment after the API
-- has sent the vote on, and the figures must not wait for it (nor be lost when the answer to the vote is).
CREATE TABLE vote_figures (
  workflow_id  text NOT NULL REFERENCES orders (workflow_id) ON DELETE CASCADE,
  quote_number integer NOT NULL,
  approver_id  text NOT NULL,
  figures      jsonb NOT NULL,
  computed_at  timestamptz NOT NULL DEFAULT now(),

  PRIMARY KEY (workflow_id, quote_number, approver_id),
  CONSTRAINT vote_figures_quote_number_positive CHECK (quote_number >= 1),
  CONSTRAINT vote_figures_figures_object CHECK (jsonb_typeof(figures) = 'object')
);
