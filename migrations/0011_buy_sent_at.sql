-- When the buy activity claimed an attempt to send it, just before its request left. An attempt with an intent, no
-- outcome and no sent_at was never sent, and a claim and a close of such an attempt exclude each other: the order
-- can retry a buy whose activity was lost before it sent anything (docs/order-workflow.md, "A lost buy").
ALTER TABLE buy_attempts ADD COLUMN sent_at timestamptz;
