-- The web console's browser sessions, shared by every API server behind a load balancer: a browser signed in through
-- one server is signed in on all, and a sign-out on one ends the session on all. The browser holds a random 256-bit
-- id in an HttpOnly cookie; only its SHA-256 is stored, so reading this table gives no cookie to present. A fast hash
-- is right for 256 random bits (nothing to guess), as for api_tokens.
CREATE TABLE console_sessions (
  id_hash               bytea PRIMARY KEY,
  created_at            timestamptz NOT NULL,
  -- Written at most about once a minute per session, not on every request.
  last_seen_at          timestamptz NOT NULL,
  -- The earliest of: idle since last_seen_at, the absolute lifetime, the credential's expiry. Rows past it are
  -- deleted from time to time; until then they are refused when read.
  expires_at            timestamptz NOT NULL,
  credential_expires_at timestamptz,
  -- Who is signed in (as the API answered GET /api/v1/me); NULL for an anonymous session (the sign-in form's).
  signed_in_user        jsonb,
  -- A one-time message for the next page.
  flash                 jsonb,
  -- The bearer credential the console calls the API with, and an OIDC sign-in under way: AES-256-GCM with a codec key
  -- (MVE_CODEC_KEYS) named by secrets_key_id, bound to id_hash, never in plaintext.
  secrets_key_id        text,
  secrets               bytea,

  CONSTRAINT console_sessions_id_hash_sha256 CHECK (octet_length(id_hash) = 32),
  CONSTRAINT console_sessions_secrets_complete CHECK ((secrets_key_id IS NULL) = (secrets IS NULL)),
  CONSTRAINT console_sessions_seen_after_created CHECK (last_seen_at >= created_at),
  CONSTRAINT console_sessions_user_object CHECK (jsonb_typeof(signed_in_user) = 'object'),
  CONSTRAINT console_sessions_flash_object CHECK (jsonb_typeof(flash) = 'object')
);

-- The periodic clean-up: ended sessions first, then anonymous ones beyond the newest few thousand.
CREATE INDEX console_sessions_expires_at_idx ON console_sessions (expires_at);
CREATE INDEX console_sessions_anonymous_idx ON console_sessions (last_seen_at) WHERE signed_in_user IS NULL;
