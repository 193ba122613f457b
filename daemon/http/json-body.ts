// JSON body parsing: an empty body is "no body" (the route's schema decides if that is fine),
// anything unparsable is invalid_request_body, and __proto__/constructor keys are refused.
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from '../domain/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body as received, for signature checks (webhook triggers). */
    rawBody?: string;
  }
}

export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    request.rawBody = text;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(
        null,
        secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }),
      );
    } catch {
      done(
        new ApiError(
          'invalid_request_body',
          'The request body is not valid JSON. Check quotes, commas and brackets.',
        ),
        undefined,
      );
    }
  });
}
