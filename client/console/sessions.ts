import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { seal, unseal, type Keyring } from '../../codec/index.js';
import { CONSOLE_SESSION_TOUCH_INTERVAL_SECONDS, type ConsoleSessionsRepository } from '../../infra/db/index.js';

/** Who is signed in, as the API told us (`GET /api/v1/me` with the session's credential). */
export interface ConsoleUser {
  id: string;
  /** Who the API knows the user as, unique across credentials (`GET /api/v1/me`): what ownership is checked against. */
  qualifiedId: string;
  roles: string[];
  via: 'oidc' | 'token';
  can: { submit: boolean; approve: boolean; seeAllOrders: boolean; resolveBuys: boolean; readHistoryPayloads: boolean };
}

/**
 * A browser session: the browser holds a random id in an HttpOnly cookie, PostgreSQL the rest (migration 0017), so any
 * API server behind a load balancer answers any request. A session starts anonymous (for the sign-in form's CSRF
 * token) and is replaced by a new one, with a new id, on sign-in.
 */
export interface ConsoleSession {
  /** The cookie's value: in this process's memory only, never stored. */
  id: string;
  /** The CSRF token every form of this session carries (hidden field `_csrf`), derived from the id. */
  csrf: string;
  createdAt: number;
  lastSeenAt: number;
  user?: ConsoleUser;
  /** The bearer credential the console calls the API with on this user's behalf (never sent to the browser). */
  credential?: string;
  /** When the credential stops working (OIDC access tokens); the session ends then. */
  credentialExpiresAt?: number;
  /** A one-time message for the next page. */
  flash?: Flash;
  /** State of a sign-in under way with the identity provider. */
  pendingOidc?: { state: string; nonce: string; codeVerifier: string; next: string; startedAt: number };
}

/**
 * A one-time message for the next page. One after a vote follows the order: its page tells what became of the vote
 * from the order as it is when shown, and its live refreshes tell it again until another page is loaded.
 */
export type Flash = {
  kind: 'ok' | 'error';
  /** What is said, or for a vote, what is said when the order cannot be read. */
  text: string;
  vote?: VoteFlash;
  /** Set once the order's page showed a vote's flash: its live refreshes show it again, the next page load drops it. */
  shown?: boolean;
};

/** A vote the person just cast, as the flash after it tells it. */
export type VoteFlash = {
  orderId: string;
  decision: 'approve' | 'reject';
  /** The price the person decided on, as the form showed it. */
  monthlyRate: number | null;
  currency: string | null;
  /** Whether it was the last approval needed (the vote's answer: the order no longer awaited approval). */
  closedRound: boolean;
};

/** What of a session is sealed with a codec key before it is stored: what would let a reader act as its user. */
type SessionSecrets = Pick<ConsoleSession, 'credential' | 'pendingOidc'>;

/** What of a session a request may change; `save` writes what differs from the stored form. */
interface StoredForm {
  flash: string;
  secrets: string;
}

export interface SessionStoreOptions {
  /** Where sessions are kept: the one PostgreSQL every API server shares. */
  rows: ConsoleSessionsRepository;
  /** The codec keys (MVE_CODEC_KEYS): the current one seals credentials, any one in the ring opens them. */
  keys: Keyring;
  /** A session unused this long ends (default 8 h). */
  idleMs?: number;
  /** No session lives longer than this (default 12 h). */
  absoluteMs?: number;
  /** At most this many anonymous sessions are kept, the most recently seen (default 10,000). */
  keepAnonymous?: number;
  /** How often ended sessions are deleted, by the next server to create a session (default 5 min). */
  cleanUpEveryMs?: number;
  now?: () => number;
}

export class SessionStore {
  private readonly rows: ConsoleSessionsRepository;
  private readonly keys: Keyring;
  private readonly idleMs: number;
  private readonly absoluteMs: number;
  private readonly keepAnonymous: number;
  private readonly cleanUpEveryMs: number;
  private readonly now: () => number;
  private readonly stored = new WeakMap<ConsoleSession, StoredForm>();
  private lastCleanUp = -Infinity;

  constructor(options: SessionStoreOptions) {
    this.rows = options.rows;
    this.keys = options.keys;
    this.idleMs = options.idleMs ?? 8 * 3600_000;
    this.absoluteMs = options.absoluteMs ?? 12 * 3600_000;
    this.keepAnonymous = options.keepAnonymous ?? 10_000;
    this.cleanUpEveryMs = options.cleanUpEveryMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  async create(
    fields: Pick<ConsoleSession, 'user' | 'credential' | 'credentialExpiresAt' | 'flash'> = {},
  ): Promise<ConsoleSession> {
    const now = this.now();
    const id = randomToken();
    const session: ConsoleSession = { ...fields, id, csrf: csrfOf(id), createdAt: now, lastSeenAt: now };
    const hash = idHash(id);
    await this.rows.insertConsoleSession({
      idHash: hash,
      createdAt: new Date(now),
      expiresAt: new Date(this.endOf(session)),
      credentialExpiresAt: fields.credentialExpiresAt !== undefined ? new Date(fields.credentialExpiresAt) : null,
      user: fields.user ? { ...fields.user } : null,
      flash: fields.flash ?? null,
      secrets: this.seal(hash, session),
    });
    this.stored.set(session, storedForm(session));
    if (now - this.lastCleanUp >= this.cleanUpEveryMs) {
      this.lastCleanUp = now;
      await this.rows.deleteEndedConsoleSessions({ now: new Date(now), keepAnonymous: this.keepAnonymous });
    }
    return session;
  }

  /**
   * The live session with this id, or undefined when there is none, it has ended (idle, too old, its credential
   * expired) or its secrets no longer open (their key left the ring, they were altered or moved from another row):
   * then it is deleted.
   * A use is recorded when the last one recorded is more than a minute old.
   */
  async get(id: string | undefined): Promise<ConsoleSession | undefined> {
    if (!id) return undefined;
    const hash = idHash(id);
    const row = await this.rows.findConsoleSession(hash);
    if (!row) return undefined;
    const now = this.now();
    const secrets = row.secrets ? this.open(hash, row.secrets) : {};
    if (now >= Date.parse(row.expiresAt) || !secrets) {
      await this.rows.deleteConsoleSession(hash);
      return undefined;
    }
    const session: ConsoleSession = {
      id,
      csrf: csrfOf(id),
      createdAt: Date.parse(row.createdAt),
      lastSeenAt: Date.parse(row.lastSeenAt),
      ...(row.user ? { user: row.user as unknown as ConsoleUser } : {}),
      ...(row.credentialExpiresAt ? { credentialExpiresAt: Date.parse(row.credentialExpiresAt) } : {}),
      ...(row.flash ? { flash: row.flash as Flash } : {}),
      ...secrets,
    };
    this.stored.set(session, storedForm(session));
    if (now - session.lastSeenAt > CONSOLE_SESSION_TOUCH_INTERVAL_SECONDS * 1000) {
      session.lastSeenAt = now;
      await this.rows.touchConsoleSession({
        idHash: hash,
        at: new Date(now),
        expiresAt: new Date(this.endOf(session)),
      });
    }
    return session;
  }

  /** Stores what a request changed of the session (its flash, a sign-in under way); nothing when it changed nothing. */
  async save(session: ConsoleSession): Promise<void> {
    const before = this.stored.get(session);
    const after = storedForm(session);
    if (!before || (before.flash === after.flash && before.secrets === after.secrets)) return;
    const hash = idHash(session.id);
    await this.rows.updateConsoleSession({
      idHash: hash,
      ...(before.flash !== after.flash ? { flash: session.flash ?? null } : {}),
      ...(before.secrets !== after.secrets ? { secrets: this.seal(hash, session) } : {}),
    });
    this.stored.set(session, after);
  }

  async destroy(id: string): Promise<void> {
    await this.rows.deleteConsoleSession(idHash(id));
  }

  /** The earliest of: idle since the last use, the absolute lifetime, the credential's expiry. */
  private endOf(session: ConsoleSession): number {
    return Math.min(
      session.lastSeenAt + this.idleMs,
      session.createdAt + this.absoluteMs,
      session.credentialExpiresAt ?? Infinity,
    );
  }

  /** The session's secrets sealed to its row (they open under no other id), or null when it has none. */
  private seal(hash: Buffer, session: ConsoleSession) {
    const secrets = secretsOf(session);
    if (Object.keys(secrets).length === 0) return null;
    return seal(this.keys, Buffer.from(JSON.stringify(secrets)), sealingContext(hash));
  }

  private open(hash: Buffer, sealed: { keyId: string; data: Buffer }): SessionSecrets | undefined {
    const opened = unseal(this.keys, sealed, sealingContext(hash));
    return 'plain' in opened ? (JSON.parse(opened.plain.toString('utf8')) as SessionSecrets) : undefined;
  }
}

function secretsOf(session: ConsoleSession): SessionSecrets {
  return {
    ...(session.credential !== undefined ? { credential: session.credential } : {}),
    ...(session.pendingOidc ? { pendingOidc: session.pendingOidc } : {}),
  };
}

function storedForm(session: ConsoleSession): StoredForm {
  return { flash: JSON.stringify(session.flash ?? null), secrets: JSON.stringify(secretsOf(session)) };
}

/** The row's key: a reader of the table holds no id a browser could present. */
function idHash(id: string): Buffer {
  return createHash('sha256').update(id).digest();
}

function sealingContext(hash: Buffer): Buffer {
  return Buffer.concat([Buffer.from('console-session:'), hash]);
}

/**
 * The CSRF token of the session with this id: derived, so it is stored nowhere; only a holder of the id (the
 * browser's cookie) can compute it, and the token gives nothing of the id away.
 */
function csrfOf(id: string): string {
  return createHmac('sha256', id).update('mve-console csrf').digest('base64url');
}

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison of the CSRF token a form carried with the session's. */
export function csrfMatches(session: ConsoleSession, sent: unknown): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (!cookies.has(name)) {
      try {
        cookies.set(name, decodeURIComponent(value));
      } catch {
        // a cookie that is not ours
      }
    }
  }
  return cookies;
}

/** The session cookie: HttpOnly, SameSite=Lax, Path=/; Secure (and the `__Host-` prefix) unless in dev. */
export function sessionCookie(secure: boolean): { name: string; set(value: string): string; clear(): string } {
  const name = secure ? '__Host-mve_console' : 'mve_console';
  const attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  return {
    name,
    set: (value) => `${name}=${encodeURIComponent(value)}; ${attributes}`,
    clear: () => `${name}=; ${attributes}; Max-Age=0`,
  };
}

/**
 * The bearer credential of the signed-in session a request's cookie names, or undefined: what the Temporal Web UI,
 * open in the same browser, calls the codec server with (client/http/server.ts says when a cookie may stand for it).
 */
export function sessionCredential(
  sessions: SessionStore,
  secureCookies: boolean,
): (cookieHeader: string | undefined) => Promise<string | undefined> {
  const { name } = sessionCookie(secureCookies);
  return async (cookieHeader) => {
    const session = await sessions.get(parseCookies(cookieHeader).get(name));
    return session?.user ? session.credential : undefined;
  };
}
