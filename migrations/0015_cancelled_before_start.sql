-- An order no worker has started yet (its ticket unclaimed: no worker for its environment was running) can be
-- cancelled through the API: the cancellation takes the ticket's claim away for good in the same step that records
-- the order CANCELLED, so a worker that comes later refuses the run (docs/security.md) and nothing is looked up or
-- bought.
ALTER TABLE tickets
  ADD COLUMN cancelled_before_start_at timestamptz,
  ADD CONSTRAINT tickets_cancelled_before_start_unclaimed CHECK (
    cancelled_before_start_at IS NULL OR claimed_run_id IS NULL);
