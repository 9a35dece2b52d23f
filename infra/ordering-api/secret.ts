import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * Holds a credential (client secret, access token) so that it cannot leak by accident: printing, logging,
 * JSON-serialising or string-interpolating it yields "[redacted]". Only `reveal()` gives the value.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
