-- The follow-up of a bought MVE's provisioning: an order goes on from BOUGHT to PROVISIONING, then LIVE, or ends
-- PROVISIONING_FAILED (the provider says it will never be live) or PROVISIONING_STALLED (not live by the deadline).
ALTER DOMAIN order_status DROP CONSTRAINT order_status_valid;
ALTER DOMAIN order_status ADD CONSTRAINT order_status_valid CHECK (VALUE IN (
    'RECEIVED', 'LOOKING_UP', 'VALIDATING', 'AWAITING_APPROVAL', 'APPROVED', 'BUYING', 'BOUGHT',
    'REJECTED', 'EXPIRED', 'CANCELLED', 'FAILED', 'BUY_UNCERTAIN',
    'PROVISIONING', 'LIVE', 'PROVISIONING_FAILED', 'PROVISIONING_STALLED'));
