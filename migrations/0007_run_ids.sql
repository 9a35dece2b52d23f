-- Which run of the order's workflow wrote the record: the run that received the order, and the run that
-- attempted each buy. A later run (the records outlive Temporal's memory) cannot pass for the first.
ALTER TABLE orders ADD COLUMN run_id text;
ALTER TABLE buy_attempts ADD COLUMN run_id text;
