-- An order's workflow ended by Temporal rather than by the order (terminated, timed out): the records keep the state
-- the order was in, and whatever notices it first (an action sent to it through the API) marks the ticket here, so
-- ops see why the order stopped. The ticket is never started again (its claim stands; docs/security.md).
ALTER TABLE tickets
  ADD COLUMN closed_in_temporal    text,
  ADD COLUMN closed_in_temporal_at timestamptz,
  ADD CONSTRAINT tickets_closed_in_temporal_known CHECK (
    closed_in_temporal IS NULL OR closed_in_temporal IN ('TERMINATED', 'TIMED_OUT', 'FAILED', 'CANCELED')),
  ADD CONSTRAINT tickets_closed_in_temporal_complete CHECK ((closed_in_temporal IS NULL) = (closed_in_temporal_at IS NULL));
