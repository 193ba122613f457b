// One log line per request, written when it completes: method, URL with credentials cut out,
// status and time. Fastify's default two lines would log raw URLs (api_key in the query).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { redactUrl } from '../logger.js';

export class RequestLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'req_id' });
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      req_id: request.id,
      method: request.method,
      url: redactUrl(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}
