import { html, type Html } from '../html.js';
import { csrfField } from '../layout.js';
import type { ConsoleSession } from '../sessions.js';

/** The sign-in page: the identity provider's button, the development users' buttons, or why there is neither. */
export function signInView(options: {
  session: ConsoleSession;
  devUsers: Array<{ id: string; roles: string[] }>;
  oidc: boolean;
  next: string;
  message?: string;
}): Html {
  const { session, devUsers, oidc, next, message } = options;
  return html`<h1>Sign in</h1>
    ${message ? html`<div class="notice info" role="status">${message}</div>` : ''}
    ${
      oidc
        ? html`<form method="post" action="/sign-in/oidc">${csrfField(session)}<input type="hidden" name="next" value="${next}">
          <button type="submit" class="primary" data-testid="sign-in-oidc">Sign in with your organisation's account</button></form>`
        : ''
    }
    ${
      devUsers.length
        ? html`<h2>Development users</h2>
        <p class="muted">This server runs <code>mve-orders dev</code>: sign in as one of its seeded users, with that user's API token. A real deployment signs people in with OIDC.</p>
        <form method="post" action="/sign-in/dev">${csrfField(session)}<input type="hidden" name="next" value="${next}">
          <div class="signin-users">${devUsers.map(
            (user) =>
              html`<button type="submit" name="user" value="${user.id}" data-testid="sign-in-${user.id}">${user.id}<small>${user.roles.join(', ')}</small></button>`,
          )}</div>
        </form>`
        : ''
    }
    ${
      !oidc && devUsers.length === 0
        ? html`<div class="notice error" role="alert">No sign-in is configured on this server: set <code>MVE_OIDC_ISSUER</code> and the console's OIDC client settings (docs/console.md).</div>`
        : ''
    }`;
}
