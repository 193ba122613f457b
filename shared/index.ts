// What the svc package exports for code outside it: the webhook receiver helper and the REST client.
export {
  verifySignature,
  computeSignature,
  signatureHeader,
  SIGNATURE_HEADER,
  DEFAULT_TOLERANCE_SECONDS,
} from './signature.js';
export type { VerifyResult, VerifyOptions } from './signature.js';
export { ApiClient, ApiRequestError } from './api-client.js';
export type { ApiClientOptions } from './api-client.js';
export { EVENT_TYPES, type EventType, type EventEnvelope } from './schemas/events.js';
