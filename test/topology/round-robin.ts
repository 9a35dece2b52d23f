/**
 * A client of several API servers, as a ticket system or an approver behind a load balancer meets them: each request
 * goes to the next server in turn, and every answer says which server gave it.
 *
 * - `call` is one attempt. No answer at all (refused, cut mid-request: a killed server) is an `Unanswered` error
 *   naming the server.
 * - `patient` is what a well-behaved client does: a server that does not answer, the next one at once; 503 or 429,
 *   wait the `Retry-After` it was given and send the same request again (safe with this API: a ticket sent again is
 *   the same order, a vote counts once). It gives up at its deadline.
 *
 * Every answer of `/api/` and `/codec/` is checked as it arrives: an error must be clear (a status, `error.code` and `error.message`, no stack,
 * `Retry-After` on 503 and 429, never another 5xx); what fails the check is kept in `problems`, for the test to assert
 * empty. `stats` counts what the client met.
 */

export interface Answer {
  status: number;
  /** The JSON body, or the text when it is not JSON; read it as the type expected with `json<T>(answer)`. */
  body: unknown;
  json(): unknown;
  headers: Headers;
  /** Which server answered: its index in the list the client was given. */
  server: number;
}

/**
 * The `error.code` and `error.message` an answer carries, each only when it is text: none for a success, or for a body
 * that is not the API's refusal.
 */
export function refusalOf(answer: Answer): { code?: string; message?: string } {
  const { body } = answer;
  const error: unknown = typeof body === 'object' && body !== null && 'error' in body ? body.error : undefined;
  const { code, message } = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return { code: text(code), message: text(message) };
}

export class Unanswered extends Error {
  override readonly name = 'Unanswered';
  constructor(
    readonly server: number,
    readonly url: string,
    reason: string,
  ) {
    super(`server ${server} (${url}) did not answer: ${reason}`);
  }
}

export interface CallOptions {
  /** Whose token to send (a key of the token table); none: no credentials. */
  as?: string;
  body?: unknown;
  /** This server rather than the next in turn. */
  server?: number;
  /** How long one attempt may take (default 60 s: a read waits up to ~20 s for Temporal before the records answer). */
  timeoutMs?: number;
}

export interface ClientStats {
  /** Attempts sent. */
  requests: number;
  /** Answers by server index. */
  answersByServer: number[];
  /** 503 answers, and among them those naming each dependency. */
  unavailable: number;
  unavailableBy: Record<string, number>;
  rateLimited: number;
  /** 5xx answers that are not a 503 with Retry-After: errors a client cannot act on. */
  unclearServerErrors: number;
  /** Attempts no server answered (refused, or cut mid-request), and why (`ECONNREFUSED`, `other side closed`). */
  unanswered: number;
  unansweredWhy: Record<string, number>;
  /** The longest a `patient` call took from its first attempt to its answer, and which call that was. */
  longestPatientMs: number;
  longestPatientCall: string;
}

const STACK = /\n\s+at |\bat [\w.<>]+ \(|node:internal|\/node_modules\//;

export class RoundRobinClient {
  readonly stats: ClientStats = {
    requests: 0,
    answersByServer: [],
    unavailable: 0,
    unavailableBy: {},
    rateLimited: 0,
    unclearServerErrors: 0,
    unanswered: 0,
    unansweredWhy: {},
    longestPatientMs: 0,
    longestPatientCall: '',
  };
  /** Answers that were not clear errors (a 500, a stack, a 503 without Retry-After…), one line each. */
  readonly problems: string[] = [];
  #next = 0;

  /**
   * @param servers the servers' base URLs, read at each call (a cluster adds servers; a killed one keeps its place
   *   and refuses connections until it is started again, as behind a load balancer that does not know yet)
   * @param tokens bearer tokens by user
   */
  constructor(
    private readonly servers: () => readonly string[],
    private readonly tokens: Readonly<Record<string, string>>,
  ) {}

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const urls = this.servers();
    if (urls.length === 0) throw new Error('the client has no server to call');
    const server = options.server ?? this.#next++ % urls.length;
    const url = urls[server];
    const token = options.as === undefined ? undefined : this.tokens[options.as];
    if (options.as !== undefined && token === undefined) throw new Error(`no token for ${options.as}`);
    this.stats.requests++;
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${url}${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      });
      text = await response.text();
    } catch (error) {
      const why = describeFailure(error);
      this.stats.unanswered++;
      this.stats.unansweredWhy[why] = (this.stats.unansweredWhy[why] ?? 0) + 1;
      throw new Unanswered(server, url, why);
    }
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON (metrics): the text
    }
    const answer: Answer = { status: response.status, body, json: () => body, headers: response.headers, server };
    this.stats.answersByServer[server] = (this.stats.answersByServer[server] ?? 0) + 1;
    // the API's answers; /readyz's 503 is a report for load balancers, not an error
    if (/^\/(api|codec)\//.test(path)) this.#check(`${method} ${path}`, answer, text);
    return answer;
  }

  /**
   * The request sent until it is answered other than 503/429: on to the next server when one does not answer, after
   * `Retry-After` when told to wait. Fails after `deadlineMs` (default 3 minutes), naming the last answer.
   */
  async patient(method: string, path: string, options: CallOptions = {}, deadlineMs = 180_000): Promise<Answer> {
    const started = Date.now();
    let last = 'nothing yet';
    let unansweredInARow = 0;
    for (;;) {
      let wait = 0;
      try {
        const answer = await this.call(method, path, options);
        unansweredInARow = 0;
        if (answer.status !== 503 && answer.status !== 429) {
          const took = Date.now() - started;
          if (took > this.stats.longestPatientMs) {
            this.stats.longestPatientMs = took;
            this.stats.longestPatientCall = `${method} ${path}`;
          }
          return answer;
        }
        last = `${answer.status} ${refusalOf(answer).code ?? ''} from server ${answer.server}`;
        wait = Number(answer.headers.get('retry-after') ?? 1) * 1000;
      } catch (error) {
        if (!(error instanceof Unanswered) || options.server !== undefined) throw error;
        last = error.message;
        // every server in turn refused: none is up, so wait a little before going round again
        wait = ++unansweredInARow >= this.servers().length ? 1_000 : 0;
      }
      if (Date.now() + wait - started > deadlineMs)
        throw new Error(`${method} ${path} was not answered within ${deadlineMs / 1000} s; last: ${last}`);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  #check(call: string, answer: Answer, text: string): void {
    const { status } = answer;
    const { code, message } = refusalOf(answer);
    if (status === 503) {
      this.stats.unavailable++;
      const which = /^(\w+) does not answer/.exec(message ?? '')?.[1] ?? code ?? 'other';
      this.stats.unavailableBy[which] = (this.stats.unavailableBy[which] ?? 0) + 1;
    }
    if (status === 429) this.stats.rateLimited++;
    if (status < 400) return;
    const problem = (what: string) =>
      this.problems.push(`${call} → ${status} from server ${answer.server}: ${what}: ${text.slice(0, 300)}`);
    const retryAfter = /^\d+$/.test(answer.headers.get('retry-after') ?? '');
    if (status >= 500 && !(status === 503 && retryAfter)) this.stats.unclearServerErrors++;
    if (status >= 500 && status !== 503) problem('a server error');
    if ((status === 503 || status === 429) && !retryAfter) problem('no Retry-After');
    if (typeof code !== 'string' || typeof message !== 'string') problem('no error code and message');
    if (STACK.test(text)) problem('a stack trace');
  }
}

/** Why fetch got no answer, in a few words: `ECONNREFUSED`, `other side closed`, `timeout`. */
function describeFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError') return 'timeout';
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
