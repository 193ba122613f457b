// JSON body parsing: an empty body is "no body" (the route's schema decides if that is fine),
// anything unparsable is invalid_request_body, and so are __proto__/constructor.prototype keys
// (the message names the key and why), and nesting past MAX_JSON_DEPTH levels is
// invalid_parameter naming the top-level field. Large bodies wait their turn (one per turn of
// the event loop) so that many arriving together do not hold it in one go.
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import {
  findForbiddenKey,
  forbiddenKeyReason,
  type ForbiddenKey,
} from '../../shared/forbidden-keys.js';
import { ApiError } from '../domain/errors.js';
import { deepPath, exceedsDepth, MAX_JSON_DEPTH } from '../domain/json-depth.js';
import { TurnQueue } from './turn-queue.js';

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
    if (text.length > LARGE_BODY_CHARS) largeBodies.push(() => parseBody(text, done));
    else parseBody(text, done);
  });
}

/**
 * Bodies longer than this are parsed one per turn of the event loop (TurnQueue): parsing one
 * near the 1 MiB limit takes 5-50 ms of CPU depending on its shape (many small values cost the
 * most), more on a loaded machine.
 */
export const LARGE_BODY_CHARS = 64 * 1024;
const largeBodies = new TurnQueue();

function parseBody(text: string, done: (error: Error | null, body?: unknown) => void): void {
  if (text.trim() === '') {
    done(null, undefined);
    return;
  }
  if (exceedsDepth(text)) {
    done(tooDeep(text), undefined);
    return;
  }
  let body: unknown;
  try {
    body = parseSafely(text);
  } catch {
    done(refusal(text), undefined);
    return;
  }
  done(null, body);
}

/**
 * Why secure-json-parse refused a body: valid JSON holding a key it forbids (named, with the
 * reason), else invalid JSON. Only refused bodies are parsed a second time to tell.
 */
function refusal(text: string): ApiError {
  let found: ForbiddenKey | undefined;
  try {
    found = findForbiddenKey(JSON.parse(text) as unknown);
  } catch {
    // Not JSON at all.
  }
  if (found) {
    return new ApiError(
      'invalid_request_body',
      `The request body is valid JSON, but ${forbiddenKeyReason(found)}`,
      { param: found.path },
    );
  }
  return new ApiError(
    'invalid_request_body',
    'The request body is not valid JSON. Check quotes, commas and brackets.',
  );
}

/**
 * JSON.parse, refusing __proto__ and constructor keys. A text in which neither word occurs, nor
 * a \\u escape that could spell one, cannot hold them: it is parsed at once, sparing
 * secure-json-parse's scans of the whole text (its regular expressions cost ten times more
 * than these searches on a large body).
 */
function parseSafely(text: string): unknown {
  if (!text.includes('__proto__') && !text.includes('constructor') && !text.includes('\\u')) {
    return JSON.parse(text) as unknown;
  }
  return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
}

function tooDeep(text: string): ApiError {
  let path: string | undefined;
  try {
    path = deepPath(JSON.parse(text) as unknown);
  } catch {
    // Unparsable as well: the depth is what the client must fix first.
  }
  const field = path?.split('.')[0];
  return new ApiError(
    'invalid_parameter',
    `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep${path ? ` (at ${path})` : ''}. Flatten it.`,
    field ? { param: field } : {},
  );
}
