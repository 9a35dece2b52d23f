-- The rules of every approval policy an order was governed by, stored once per content hash (SHA-256 of the
-- parsed policy as canonical JSON). An order's journal names its policy by version and hash only, so the rules
-- stay out of the workflow's history: the worker stores a policy here the first time it serves it, before any
-- order can name it. The order keeps its copy of the rules (orders.policy), filled from here.
CREATE TABLE approval_policies (
  hash      text PRIMARY KEY,
  policy    jsonb NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now(),

  CONSTRAINT approval_policies_hash_hex CHECK (hash ~ '^[0-9a-f]{64}$'),
  CONSTRAINT approval_policies_policy_object CHECK (jsonb_typeof(policy) = 'object')
);

-- The policies of the orders recorded so far (the same hash is the same rules: the oldest order's copy is kept).
INSERT INTO approval_policies (hash, policy, stored_at)
SELECT DISTINCT ON (policy_hash) policy_hash, policy, created_at
FROM orders
WHERE policy_hash IS NOT NULL
ORDER BY policy_hash, created_at;

-- No order can name a policy whose rules are not stored.
ALTER TABLE orders ADD CONSTRAINT orders_policy_hash_fkey FOREIGN KEY (policy_hash) REFERENCES approval_policies (hash);
