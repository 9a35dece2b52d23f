-- Orders: one row per order workflow (the workflow id is derived from the ticket id), and every state
-- transition it went through. Requests are stored with secrets already redacted by the caller.

CREATE DOMAIN order_status AS text CONSTRAINT order_status_valid CHECK (VALUE IN (
    'RECEIVED', 'LOOKING_UP', 'VALIDATING', 'AWAITING_APPROVAL', 'APPROVED', 'BUYING', 'BOUGHT',
    'REJECTED', 'EXPIRED', 'CANCELLED', 'FAILED', 'BUY_UNCERTAIN'));

CREATE DOMAIN order_environment AS text
  CONSTRAINT order_environment_valid CHECK (VALUE IN ('staging', 'production'));

CREATE TABLE orders (
  workflow_id                   text PRIMARY KEY,
  ticket_id                     text NOT NULL,
  environment                   order_environment NOT NULL,
  requested_by                  text NOT NULL,
  request                       jsonb NOT NULL,
  status                        order_status NOT NULL DEFAULT 'RECEIVED',
  -- The sequence number of the newest recorded event: status follows the newest event only, so an
  -- out-of-order retry of an older event never moves the status backwards.
  last_event_sequence           integer NOT NULL DEFAULT 0,
  quote_number                  integer,
  quote_monthly_rate            numeric,
  quote_currency                text,
  quoted_at                     timestamptz,
  product_technical_service_uid text,
  product_provisioning_status   text,
  last_error                    text,
  last_error_at                 timestamptz,
  created_at                    timestamptz NOT NULL DEFAULT now(),
  updated_at                    timestamptz NOT NULL DEFAULT now(),

  CONSTRAINT orders_workflow_id_not_blank CHECK (btrim(workflow_id) <> ''),
  CONSTRAINT orders_ticket_id_not_blank CHECK (btrim(ticket_id) <> ''),
  CONSTRAINT orders_requested_by_not_blank CHECK (btrim(requested_by) <> ''),
  CONSTRAINT orders_request_is_object CHECK (jsonb_typeof(request) = 'object'),
  CONSTRAINT orders_quote_complete CHECK (
    (quote_number IS NULL AND quote_monthly_rate IS NULL AND quote_currency IS NULL AND quoted_at IS NULL)
    OR (quote_number IS NOT NULL AND quote_monthly_rate IS NOT NULL AND quote_currency IS NOT NULL
        AND quoted_at IS NOT NULL)),
  CONSTRAINT orders_quote_number_positive CHECK (quote_number >= 1),
  CONSTRAINT orders_quote_monthly_rate_not_negative CHECK (quote_monthly_rate >= 0),
  CONSTRAINT orders_quote_currency_code CHECK (quote_currency ~ '^[A-Z]{3}$'),
  CONSTRAINT orders_product_complete CHECK (
    (product_technical_service_uid IS NULL) = (product_provisioning_status IS NULL)),
  CONSTRAINT orders_last_error_complete CHECK ((last_error IS NULL) = (last_error_at IS NULL))
);

CREATE INDEX orders_status_idx ON orders (status, created_at DESC);
CREATE INDEX orders_ticket_id_idx ON orders (ticket_id);
CREATE INDEX orders_environment_idx ON orders (environment, created_at DESC);
CREATE INDEX orders_created_at_idx ON orders (created_at DESC);

CREATE TABLE order_events (
  workflow_id text NOT NULL REFERENCES orders (workflow_id) ON DELETE CASCADE,
  -- Chosen by the workflow (0 is the "received" event); the key that makes a retried insert a no-op.
  sequence    integer NOT NULL,
  from_status order_status,
  to_status   order_status NOT NULL,
  actor       text NOT NULL,
  reason      text,
  details     jsonb NOT NULL DEFAULT '{}'::jsonb,
  at          timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),

  PRIMARY KEY (workflow_id, sequence),
  CONSTRAINT order_events_sequence_not_negative CHECK (sequence >= 0),
  CONSTRAINT order_events_actor_not_blank CHECK (btrim(actor) <> ''),
  CONSTRAINT order_events_details_is_object CHECK (jsonb_typeof(details) = 'object')
);
