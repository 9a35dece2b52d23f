-- API tokens for machines (a ticket system, ops scripts): `mvo_<id>_<secret>`, shown once when issued.
-- Only the SHA-256 of the secret part is stored, never the token. The secret is 32 random bytes (256 bits of
-- entropy), so nothing can be guessed or looked up in a table: a fast hash is the right one here, and a slow
-- password hash (bcrypt, argon2) would only cost time on every request. The id is public: it names the token
-- in lists, logs and `tokens revoke`, and finds its row.
CREATE TABLE api_tokens (
  id           text PRIMARY KEY,
  secret_hash  bytea NOT NULL,
  -- Whom the token acts as: the principal id of its requests (same form as approvers.id).
  owner        text NOT NULL,
  roles        text[] NOT NULL,
  description  text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  -- NULL: never expires.
  expires_at   timestamptz,
  -- Written at most about once a minute per token, not on every request.
  last_used_at timestamptz,
  revoked_at   timestamptz,
  revoked_by   text,

  CONSTRAINT api_tokens_id_format CHECK (id ~ '^[a-z0-9]{8,32}$'),
  CONSTRAINT api_tokens_secret_hash_sha256 CHECK (octet_length(secret_hash) = 32),
  CONSTRAINT api_tokens_owner_format CHECK (owner ~ '^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$'),
  CONSTRAINT api_tokens_roles_format CHECK (
    cardinality(roles) >= 1
    AND array_position(roles, NULL) IS NULL
    AND array_to_string(roles, ',') ~ '^[a-z][a-z0-9._-]*(,[a-z][a-z0-9._-]*)*$'
    -- and no role hides a comma (which the joined form above could not tell from two roles)
    AND cardinality(string_to_array(array_to_string(roles, ','), ',')) = cardinality(roles)),
  CONSTRAINT api_tokens_description_not_blank CHECK (btrim(description) <> ''),
  CONSTRAINT api_tokens_expires_after_created CHECK (expires_at > created_at),
  CONSTRAINT api_tokens_revoked_complete CHECK ((revoked_at IS NULL) = (revoked_by IS NULL)),
  CONSTRAINT api_tokens_revoked_by_not_blank CHECK (btrim(revoked_by) <> '')
);

-- "Which tokens act as X": identities compare case-insensitively.
CREATE INDEX api_tokens_owner_idx ON api_tokens (lower(owner));
