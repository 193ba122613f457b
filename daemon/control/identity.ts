// GET /control/identity?nonce=...: the daemon's proof that it is the one its data dir records
// (shared/daemon-identity.ts), asked by the CLI before it sends the control token. No credential:
// the answer is a keyed hash of the caller's own nonce, which reveals nothing about the key.
import type { FastifyInstance } from 'fastify';
import { IDENTITY_PATH, identityProof, NONCE_PATTERN } from '../../shared/daemon-identity.js';
import { ApiError } from '../domain/errors.js';

export function identityRoute(app: FastifyInstance, daemonId: string): void {
  app.get(IDENTITY_PATH, (request, reply) => {
    const nonce = (request.query as Record<string, unknown> | undefined)?.nonce;
    if (typeof nonce !== 'string' || !NONCE_PATTERN.test(nonce))
      throw new ApiError('invalid_parameter', 'Send nonce: 32 to 128 lowercase hex characters.', {
        param: 'nonce',
      });
    void reply.header('cache-control', 'no-store');
    return { proof: identityProof(daemonId, nonce) };
  });
}
