-- Every activity is a public entry point of the worker (docs/security.md): whoever reaches its task queue can call it,
-- from any workflow, with any input, and `temporal workflow reset` replays an order's runs. So what an activity does
-- rests on evidence it checks itself, kept here.

-- The runs the workers admitted for a ticket's chain, one line of them: the chain's first run, then each run that
-- continued from the one before. A second run after the same run (a reset copies a run's start) is not admitted,
-- and an activity of a run not listed here does nothing.
CREATE TABLE admitted_runs (
  workflow_id           text NOT NULL,
  run_id                text NOT NULL,
  first_run_id          text NOT NULL,
  continued_from_run_id text,
  admitted_at           timestamptz NOT NULL DEFAULT now(),

  PRIMARY KEY (workflow_id, run_id)
);

CREATE UNIQUE INDEX admitted_runs_one_successor_idx ON admitted_runs (workflow_id, coalesce(continued_from_run_id, ''));

-- The first runs of orders started before runs were admitted here: the runs that claimed their tickets.
INSERT INTO admitted_runs (workflow_id, run_id, first_run_id, admitted_at)
SELECT workflow_id, claimed_run_id, claimed_run_id, claimed_at FROM tickets WHERE claimed_run_id IS NOT NULL;

-- What the workers refused to do, and for whom: one row per run and activity (an attacker's repeats add nothing).
CREATE TABLE refused_calls (
  workflow_id text NOT NULL,
  run_id      text NOT NULL,
  activity    text NOT NULL,
  reason      text NOT NULL,
  refused_at  timestamptz NOT NULL DEFAULT now(),

  PRIMARY KEY (workflow_id, run_id, activity),
  CONSTRAINT refused_calls_reason_not_blank CHECK (btrim(reason) <> '')
);

CREATE INDEX refused_calls_refused_at_idx ON refused_calls (refused_at DESC);

-- The quotes the workers obtained themselves, by validating the ticket's registered request: the buy pays only a
-- price found here. The seal (HMAC with the action key) keeps a writer of the records from adding one.
CREATE TABLE worker_quotes (
  workflow_id  text NOT NULL REFERENCES orders (workflow_id) ON DELETE CASCADE,
  run_id       text NOT NULL,
  quoted_at    timestamptz NOT NULL,
  monthly_rate numeric NOT NULL,
  currency     text NOT NULL,
  seal         text NOT NULL,

  PRIMARY KEY (workflow_id, quoted_at, monthly_rate, currency)
);

-- A vote is kept with the HTTP API's signature over it, so that a buy can check it again.
ALTER TABLE approvals ADD COLUMN signature jsonb;

-- The moves an order may make (domain/order-states.ts; test/db/migrations.test.ts keeps the two the same), and none
-- out of a state that has ended.
CREATE TABLE order_transitions (
  from_status order_status NOT NULL,
  to_status   order_status NOT NULL,
  PRIMARY KEY (from_status, to_status)
);

INSERT INTO order_transitions (from_status, to_status) VALUES
  ('RECEIVED', 'LOOKING_UP'), ('RECEIVED', 'CANCELLED'), ('RECEIVED', 'FAILED'),
  ('LOOKING_UP', 'VALIDATING'), ('LOOKING_UP', 'CANCELLED'), ('LOOKING_UP', 'FAILED'),
  ('VALIDATING', 'AWAITING_APPROVAL'), ('VALIDATING', 'APPROVED'), ('VALIDATING', 'CANCELLED'),
  ('VALIDATING', 'FAILED'),
  ('AWAITING_APPROVAL', 'APPROVED'), ('AWAITING_APPROVAL', 'REJECTED'), ('AWAITING_APPROVAL', 'EXPIRED'),
  ('AWAITING_APPROVAL', 'CANCELLED'), ('AWAITING_APPROVAL', 'FAILED'),
  ('APPROVED', 'BUYING'), ('APPROVED', 'VALIDATING'), ('APPROVED', 'CANCELLED'), ('APPROVED', 'FAILED'),
  ('BUYING', 'BOUGHT'), ('BUYING', 'BUY_UNCERTAIN'), ('BUYING', 'FAILED'),
  ('BUY_UNCERTAIN', 'BOUGHT'), ('BUY_UNCERTAIN', 'BUYING'), ('BUY_UNCERTAIN', 'VALIDATING'),
  ('BUY_UNCERTAIN', 'FAILED'),
  ('BOUGHT', 'PROVISIONING'), ('BOUGHT', 'LIVE'), ('BOUGHT', 'PROVISIONING_FAILED'),
  ('BOUGHT', 'PROVISIONING_STALLED'),
  ('PROVISIONING', 'LIVE'), ('PROVISIONING', 'PROVISIONING_FAILED'), ('PROVISIONING', 'PROVISIONING_STALLED');

CREATE FUNCTION order_events_follow_the_rules() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  current_status order_status;
BEGIN
  IF NEW.from_status IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM order_transitions WHERE from_status = NEW.from_status AND to_status = NEW.to_status)
  THEN
    RAISE EXCEPTION 'an order does not move from % to %', NEW.from_status, NEW.to_status
      USING ERRCODE = 'check_violation', CONSTRAINT = 'order_events_transition_allowed';
  END IF;
  SELECT o.status INTO current_status FROM orders o
  WHERE o.workflow_id = NEW.workflow_id AND o.last_event_sequence < NEW.sequence;
  IF current_status IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM order_transitions WHERE from_status = current_status)
  THEN
    RAISE EXCEPTION 'the order has ended (%); nothing moves it on', current_status
      USING ERRCODE = 'check_violation', CONSTRAINT = 'order_events_not_after_end';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER order_events_follow_the_rules BEFORE INSERT ON order_events
  FOR EACH ROW EXECUTE FUNCTION order_events_follow_the_rules();

-- Ops' recoveries of an order whose run was ended (a reset, a terminate) or wedged: the API resets the chain's latest
-- admitted run to its last completed workflow task, and the run that reset makes takes that run's place in the line,
-- once the worker has read in the run's own history that it is that reset (docs/security.md, "Recovering an order").
CREATE TABLE run_recoveries (
  id             bigserial PRIMARY KEY,
  workflow_id    text NOT NULL,
  from_run_id    text NOT NULL,
  reset_event_id bigint NOT NULL,
  actor          text NOT NULL,
  reason         text NOT NULL,
  requested_at   timestamptz NOT NULL DEFAULT now(),
  to_run_id      text,
  completed_at   timestamptz,

  CONSTRAINT run_recoveries_completed CHECK ((to_run_id IS NULL) = (completed_at IS NULL)),
  CONSTRAINT run_recoveries_reason_not_blank CHECK (btrim(reason) <> '')
);

CREATE INDEX run_recoveries_workflow_idx ON run_recoveries (workflow_id, requested_at DESC);
