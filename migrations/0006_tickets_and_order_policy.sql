-- A ticket is one order forever (DESIGN.md section 7): the HTTP API registers the ticket here before it
-- starts the workflow, so a re-sent ticket finds its order even after Temporal has forgotten the workflow
-- (retention, a devserver restart). The fingerprint is an HMAC of the request (secrets included), so the
-- same body is recognised without storing anything a secret could be recovered from.
CREATE TABLE tickets (
  ticket_id          text PRIMARY KEY,
  workflow_id        text NOT NULL UNIQUE,
  environment        order_environment NOT NULL,
  requested_by       text NOT NULL,
  submitted_by       text NOT NULL,
  fingerprint        text NOT NULL,
  fingerprint_key_id text NOT NULL,
  registered_at      timestamptz NOT NULL DEFAULT now(),

  CONSTRAINT tickets_ticket_id_not_blank CHECK (btrim(ticket_id) <> ''),
  CONSTRAINT tickets_requested_by_not_blank CHECK (btrim(requested_by) <> ''),
  CONSTRAINT tickets_submitted_by_not_blank CHECK (btrim(submitted_by) <> ''),
  CONSTRAINT tickets_fingerprint_hex CHECK (fingerprint ~ '^[0-9a-f]{64}$')
);

CREATE INDEX tickets_submitted_by_idx ON tickets (lower(submitted_by));

-- The approval policy that governs each order, as the workers held it when the order started.
ALTER TABLE orders
  ADD COLUMN policy_version text,
  ADD COLUMN policy_hash    text,
  ADD COLUMN policy         jsonb,
  ADD CONSTRAINT orders_policy_complete CHECK (
    (policy_version IS NULL AND policy_hash IS NULL AND policy IS NULL)
    OR (policy_version IS NOT NULL AND policy_hash ~ '^[0-9a-f]{64}$' AND jsonb_typeof(policy) = 'object'));

CREATE INDEX orders_requested_by_idx ON orders (lower(requested_by), created_at DESC);

-- Listing pages on (created_at, workflow_id) with a cursor that carries milliseconds, as the API's JSON does:
-- orders are stamped to the millisecond, so a cursor names its order's position exactly.
UPDATE orders SET created_at = date_trunc('milliseconds', created_at);
ALTER TABLE orders ALTER COLUMN created_at SET DEFAULT date_trunc('milliseconds', now());
ALTER TABLE orders ADD CONSTRAINT orders_created_at_milliseconds CHECK (created_at = date_trunc('milliseconds', created_at));
