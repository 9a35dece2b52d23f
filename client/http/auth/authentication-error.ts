/** A caller that could not be authenticated: HTTP 401. The message says what was wrong, never the credential. */
export class AuthenticationError extends Error {
  override readonly name = 'AuthenticationError';
}
