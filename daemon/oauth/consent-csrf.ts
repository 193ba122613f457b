// Forgery protection of the consent form: a random cookie (HttpOnly, SameSite=Strict) and a
// form token that is an HMAC of that cookie and the client id under a key that lives only in
// this process. A forged submission has no cookie (SameSite), cannot read it, and so cannot
// compute the token; a foreign Origin is refused before either is looked at.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBase62 } from '../../shared/ids.js';

export const CSRF_COOKIE = 'svc_oauth_csrf';

export class ConsentCsrf {
  private readonly key = randomBytes(32);

  /** The form token for this browser (setting its cookie when it has none yet). */
  issue(request: FastifyRequest, reply: FastifyReply, clientId: string): string {
    let cookie = request.cookies[CSRF_COOKIE];
    if (!cookie || !/^[A-Za-z0-9]{32}$/.test(cookie)) {
      cookie = randomBase62(32);
      reply.setCookie(CSRF_COOKIE, cookie, {
        path: '/oauth',
        httpOnly: true,
        sameSite: 'strict',
      });
    }
    return this.token(cookie, clientId);
  }

  /** Why the submission is refused, or null when it comes from our own page in this browser. */
  refuse(request: FastifyRequest, formToken: unknown, clientId: string): string | null {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://${request.headers.host}`) {
      return `The form was submitted from another site (${origin}).`;
    }
    if (request.headers['sec-fetch-site'] === 'cross-site') {
      return 'The form was submitted from another site.';
    }
    const cookie = request.cookies[CSRF_COOKIE];
    if (!cookie) return 'The consent cookie is missing: open the authorization link again.';
    if (typeof formToken !== 'string' || formToken === '') return 'The form has no CSRF token.';
    const expected = Buffer.from(this.token(cookie, clientId));
    const given = Buffer.from(formToken);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return 'The CSRF token does not match: open the authorization link again.';
    }
    return null;
  }

  private token(cookie: string, clientId: string): string {
    return createHmac('sha256', this.key).update(`${cookie}\n${clientId}`).digest('base64url');
  }
}
