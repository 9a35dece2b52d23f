-- Notes on an order that are not state changes: reminders sent, refused signals, retries scheduled, ops'
-- comments. They share the workflow's sequence numbers with order_events, so the two read as one timeline.
CREATE TABLE order_notes (
  workflow_id text NOT NULL REFERENCES orders (workflow_id) ON DELETE CASCADE,
  sequence    integer NOT NULL,
  actor       text NOT NULL,
  message     text NOT NULL,
  details     jsonb NOT NULL DEFAULT '{}'::jsonb,
  at          timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),

  PRIMARY KEY (workflow_id, sequence),
  CONSTRAINT order_notes_sequence_positive CHECK (sequence > 0),
  CONSTRAINT order_notes_actor_not_blank CHECK (btrim(actor) <> ''),
  CONSTRAINT order_notes_message_not_blank CHECK (btrim(message) <> ''),
  CONSTRAINT order_notes_details_is_object CHECK (jsonb_typeof(details) = 'object')
);
