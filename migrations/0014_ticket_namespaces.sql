-- A ticket id is the submitting system's own name for its order, unique only within that submitter's namespace
-- (docs/security.md): two ticket systems may both send INC-1042, and no caller can take another's ticket ids. The
-- submitter key is the submitter's identity key (trimmed, NFKC, lower-cased; domain/approval/identity.ts), so every
-- spelling of one identity is one namespace. Tickets registered before keep their workflow ids.
ALTER TABLE tickets ADD COLUMN submitter_key text;
UPDATE tickets SET submitter_key = normalize(lower(normalize(btrim(submitted_by), NFKC)), NFKC);
ALTER TABLE tickets
  ALTER COLUMN submitter_key SET NOT NULL,
  DROP CONSTRAINT tickets_pkey,
  ADD PRIMARY KEY (submitter_key, ticket_id),
  ADD CONSTRAINT tickets_submitter_key_not_blank CHECK (btrim(submitter_key) <> '');

-- An approver or ops may name an order by its ticket id alone when no other order they may see has it.
CREATE INDEX tickets_ticket_id_idx ON tickets (ticket_id);
