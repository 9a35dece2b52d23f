import { randomBytes, timingSafeEqual } from 'node:crypto';

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
 * A browser session, held only in this process's memory: the browser holds a random id in an HttpOnly
 * cookie. A session starts anonymous (for the sign-in form's CSRF token) and is replaced by a new one, with
 * a new id, on sign-in.
 */
export interface ConsoleSession {
  id: string;
  /** The CSRF token every form of this session carries (hidden field `_csrf`). */
  csrf: string;
  createdAt: number;
  lastSeenAt: number;
  user?: ConsoleUser;
  /** The bearer credential the console calls the API with on this user's behalf (never sent to the browser). */
  credential?: string;
  /** When the credential stops working (OIDC access tokens); the session ends then. */
  credentialExpiresAt?: number;
  /** A one-time message for the next page. */
  flash?: { kind: 'ok' | 'error'; text: string };
  /** State of a sign-in under way with the identity provider. */
  pendingOidc?: { state: string; nonce: string; codeVerifier: string; next: string; startedAt: number };
}

export interface SessionStoreOptions {
  /** A session unused this long ends (default 8 h). */
  idleMs?: number;
  /** No session lives longer than this (default 12 h). */
  absoluteMs?: number;
  /** At most this many sessions; the least recently used go first (default 10,000). */
  maxSessions?: number;
  now?: () => number;
}

export class SessionStore {
  private readonly sessions = new Map<string, ConsoleSession>();
  private readonly idleMs: number;
  private readonly absoluteMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(options: SessionStoreOptions = {}) {
    this.idleMs = options.idleMs ?? 8 * 3600_000;
    this.absoluteMs = options.absoluteMs ?? 12 * 3600_000;
    this.maxSessions = options.maxSessions ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.sessions.size;
  }

  create(fields: Partial<Omit<ConsoleSession, 'id' | 'csrf' | 'createdAt' | 'lastSeenAt'>> = {}): ConsoleSession {
    const now = this.now();
    const session: ConsoleSession = {
      ...fields,
      id: randomToken(),
      csrf: randomToken(),
      createdAt: now,
      lastSeenAt: now,
    };
    this.sessions.set(session.id, session);
    this.evict();
    return session;
  }

  /** The live session with this id (touching it), or undefined when there is none or it has expired. */
  get(id: string | undefined): ConsoleSession | undefined {
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    const now = this.now();
    const expired =
      now - session.lastSeenAt > this.idleMs ||
      now - session.createdAt > this.absoluteMs ||
      (session.credentialExpiresAt !== undefined && now >= session.credentialExpiresAt);
    if (expired) {
      this.sessions.delete(id);
      return undefined;
    }
    session.lastSeenAt = now;
    // Map order is insertion order: re-inserting keeps the least recently used first, for eviction.
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session;
  }

  destroy(id: string): void {
    this.sessions.delete(id);
  }

  private evict(): void {
    while (this.sessions.size > this.maxSessions) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
  }
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
): (cookieHeader: string | undefined) => string | undefined {
  const { name } = sessionCookie(secureCookies);
  return (cookieHeader) => {
    const session = sessions.get(parseCookies(cookieHeader).get(name));
    return session?.user ? session.credential : undefined;
  };
}
