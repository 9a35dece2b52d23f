-- The write-ahead record of every buy (DESIGN.md section 7): the intent is recorded before the API call,
-- the outcome after it. An attempt with an intent and no outcome is a buy whose result nobody saw.

CREATE TABLE buy_attempts (
  workflow_id           text NOT NULL REFERENCES orders (workflow_id) ON DELETE CASCADE,
  attempt               integer NOT NULL,
  intent_at             timestamptz NOT NULL,
  outcome               text,
  technical_service_uid text,
  error_class           text,
  error_message         text,
  finished_at           timestamptz,
  -- Set when ops resolved an uncertain outcome (resolveBuy): who said so.
  resolved_by           text,

  PRIMARY KEY (workflow_id, attempt),
  CONSTRAINT buy_attempts_attempt_positive CHECK (attempt >= 1),
  CONSTRAINT buy_attempts_outcome_valid CHECK (outcome IN ('created', 'not-created', 'uncertain')),
  CONSTRAINT buy_attempts_outcome_finished CHECK ((outcome IS NULL) = (finished_at IS NULL)),
  CONSTRAINT buy_attempts_created_has_uid CHECK (outcome <> 'created' OR technical_service_uid IS NOT NULL)
);

-- Ops' "buys nobody saw finish" view.
CREATE INDEX buy_attempts_open_idx ON buy_attempts (intent_at) WHERE outcome IS NULL OR outcome = 'uncertain';
