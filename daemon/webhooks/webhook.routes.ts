// /v1/webhooks: subscriptions, their delivery log, manual retry and the test endpoint.
import {
  Delivery,
  DeliveryDetail,
  DeliveryIdParams,
  DeliveryListQuery,
  DeliveryParams,
  Webhook,
  WebhookCreateBody,
  WebhookListQuery,
  WebhookParams,
  WebhookTestBody,
  WebhookTestResult,
  WebhookUpdateBody,
} from '../../shared/schemas/webhooks.js';
import { listRoute, objectRoute, tenantRoute, type RouteDef } from '../http/route.js';
import { resourceRoutes } from '../http/resource-routes.js';
import type { RestModule } from '../http/rest-module.js';
import type { DeliveryService } from './deliveries/delivery.service.js';
import type { WebhookService } from './webhook.service.js';

const read = tenantRoute('webhooks:read');
const write = tenantRoute('webhooks:write');
const tag = 'Webhooks';

export const webhookModule: RestModule<{ webhooks: WebhookService; deliveries: DeliveryService }> =
  {
    tag: {
      name: tag,
      description:
        'Subscriptions to event types; signed deliveries with retries, the delivery log and a test endpoint.',
    },
    routes: ({ webhooks, deliveries }) => webhookRoutes(webhooks, deliveries),
  };

const webhook = resourceRoutes({
  tag,
  path: '/v1/webhooks',
  idParam: 'webhook_id',
  name: { singular: 'webhook', plural: 'webhooks', article: 'a' },
  scopes: { read: 'webhooks:read', write: 'webhooks:write' },
  rateLimit: { operation: 'resources' },
  notFound: 'webhook_not_found',
  item: Webhook,
  params: WebhookParams,
  listQuery: WebhookListQuery,
  createBody: WebhookCreateBody,
  updateBody: WebhookUpdateBody,
});

export function webhookRoutes(webhooks: WebhookService, deliveries: DeliveryService): RouteDef[] {
  return [
    webhook.list(({ query, ctx }) => webhooks.list(ctx.workspace.id, query)),
    webhook.create(({ body, ctx }) => webhooks.create(ctx.workspace.id, body), {
      description:
        'Subscribes a URL to event types. The answer is the only one that carries the signing secret (whsec_...). Deliveries are signed with X-Svc-Signature and retried on the spec schedule.',
      rateLimit: { operation: 'webhooks.create' },
      errors: ['invalid_url', 'invalid_event_type'],
    }),
    webhook.get(({ params, ctx }) => webhooks.get(ctx.workspace.id, params.webhook_id)),
    webhook.update(
      ({ params, body, ctx }) => webhooks.update(ctx.workspace.id, params.webhook_id, body),
      {
        description:
          'Change url, events, description, settings or status. status active resumes a paused or failed webhook and sends its held deliveries.',
        errors: ['invalid_url', 'invalid_event_type'],
      },
    ),
    webhook.delete(({ params, ctx }) => webhooks.delete(ctx.workspace.id, params.webhook_id), {
      description: 'Irreversible; its pending deliveries are dropped.',
    }),
    objectRoute({
      method: 'POST',
      path: '/v1/webhooks/:webhook_id/test',
      operationId: 'testWebhook',
      summary: 'Send a sample event now',
      description:
        'Sends a realistic sample event of event_type, signed like a real delivery, and answers with the outcome (always 200). Not stored as a delivery.',
      tag,
      auth: write,
      rateLimit: { operation: 'webhooks.test' },
      params: WebhookParams,
      body: WebhookTestBody,
      errors: ['webhook_not_found', 'invalid_event_type'],
      response: WebhookTestResult,
      handler: ({ params, body, ctx }) =>
        deliveries.test(ctx.workspace.id, params.webhook_id, body.event_type),
    }),
    listRoute({
      method: 'GET',
      path: '/v1/webhooks/:webhook_id/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'List deliveries of a webhook',
      tag,
      auth: read,
      rateLimit: { operation: 'resources' },
      params: WebhookParams,
      query: DeliveryListQuery,
      errors: ['webhook_not_found'],
      response: Delivery,
      handler: ({ params, query, ctx }) =>
        deliveries.list(ctx.workspace.id, params.webhook_id, query),
    }),
    objectRoute({
      method: 'GET',
      path: '/v1/webhooks/:webhook_id/deliveries/:delivery_id',
      operationId: 'getWebhookDelivery',
      summary: 'Retrieve a delivery with its attempts',
      tag,
      auth: read,
      rateLimit: { operation: 'resources' },
      params: DeliveryParams,
      errors: ['webhook_not_found', 'not_found'],
      response: DeliveryDetail,
      handler: ({ params, ctx }) =>
        deliveries.detail(ctx.workspace.id, params.webhook_id, params.delivery_id),
    }),
    objectRoute({
      method: 'GET',
      path: '/v1/deliveries/:delivery_id',
      operationId: 'getDelivery',
      summary: 'Retrieve a delivery by its id alone, with its attempts',
      description:
        "The same delivery as GET /v1/webhooks/{webhook_id}/deliveries/{delivery_id}, found without its webhook id (delivery ids are unique; webhook_id is in the answer), as svc webhooks delivery del_... shows it. Each attempt in attempts_history has its time, the receiver's HTTP status, the time it took, the error, the sandbox fault rule that answered instead of the receiver (injected_fault), the X-Svc-Signature header sent and the start of the answer (response_head). A delivery of another workspace, or of a deleted webhook: 404 not_found.",
      tag,
      auth: read,
      rateLimit: { operation: 'resources' },
      params: DeliveryIdParams,
      errors: ['not_found'],
      response: DeliveryDetail,
      handler: ({ params, ctx }) => deliveries.detailById(ctx.workspace.id, params.delivery_id),
    }),
    objectRoute({
      method: 'POST',
      path: '/v1/webhooks/:webhook_id/deliveries/:delivery_id/retry',
      operationId: 'retryWebhookDelivery',
      summary: 'Redeliver now',
      description:
        'Makes one attempt now (same event id and body, new signature) and answers with the delivery and its attempts. If an attempt is in flight (an automatic one), this one waits for it and is numbered after it: a delivery has one attempt at a time. If it fails, a pending delivery keeps its retry schedule; a delivered or failed one keeps its status while attempts remain; at max_attempts it is failed, and the webhook is left as it is.',
      tag,
      auth: write,
      rateLimit: { operation: 'resources' },
      params: DeliveryParams,
      errors: ['webhook_not_found', 'not_found'],
      response: DeliveryDetail,
      handler: ({ params, ctx }) =>
        deliveries.retryNow(ctx.workspace.id, params.webhook_id, params.delivery_id),
    }),
  ];
}
