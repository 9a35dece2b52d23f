-- The worker trusts no run it did not start (DESIGN.md section 7, docs/security.md). A ticket's order goes on only in
-- the workflow run that claimed the ticket first: the first run of its workflow, recorded here by the order's first
-- step. A run started some other way (raw Temporal access, a workflow id reused) finds the ticket claimed or not
-- registered at all, and stops; what was tried is kept in refused_runs for ops.
ALTER TABLE tickets
  ADD COLUMN claimed_run_id text,
  ADD COLUMN claimed_at     timestamptz,
  ADD CONSTRAINT tickets_claim_complete CHECK ((claimed_run_id IS NULL) = (claimed_at IS NULL));

-- Orders recorded before claims existed were received by their workflow's first run: that run holds the claim.
UPDATE tickets t SET claimed_run_id = o.run_id, claimed_at = o.created_at
FROM orders o WHERE o.workflow_id = t.workflow_id AND o.run_id IS NOT NULL;

CREATE TABLE refused_runs (
  workflow_id text NOT NULL,
  run_id      text NOT NULL,
  reason      text NOT NULL,
  refused_at  timestamptz NOT NULL DEFAULT now(),

  PRIMARY KEY (workflow_id, run_id),
  CONSTRAINT refused_runs_reason_not_blank CHECK (btrim(reason) <> '')
);

CREATE INDEX refused_runs_refused_at_idx ON refused_runs (refused_at DESC);
