// The OpenAPI 3.1 document, generated from the same RouteDefs and zod schemas that validate
// requests and shape responses, and from the error table: nothing here is written by hand twice.
import type { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../shared/errors.js';
import { VERSION } from '../../shared/package-info.js';
import { dataEnvelope, ErrorBody, listEnvelope, ProblemBody } from '../../shared/schemas/common.js';
import { OAUTH_ERRORS, OAuthErrorBody } from '../../shared/schemas/oauth.js';
import { SCOPE_DESCRIPTIONS } from '../../shared/scopes.js';
import { REQUIRED_BY_HANDLER, type RouteDef } from './route.js';
import type { ServerUrls } from '../domain/urls.js';
import type { ApiTag } from './rest-module.js';
import { toJsonSchema, type JsonSchema } from './json-schema.js';

type Doc = Record<string, unknown>;

/** `tags` describes the routes' tags: each REST module's (app/resources.ts). */
export function buildOpenApiDocument(
  routes: readonly RouteDef[],
  urls: ServerUrls,
  tags: readonly ApiTag[],
): Doc {
  const descriptions = new Map(tags.map((tag) => [tag.name, tag.description]));
  const paths: Record<string, Record<string, Doc>> = {};
  const used = new Set<string>();
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
    used.add(route.tag);
  }
  addLinks(routes, paths);
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc: local sandbox of the agent and workflow automation API',
      version: VERSION,
      description: INFO_DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: urls.app,
        description: 'This daemon ({app_url}); API paths start with /v1 ({base_url})',
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: [...used].sort().map((name) => ({ name, description: descriptions.get(name) ?? name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key (sk_test_... in the sandbox, sk_live_... in production) or an OAuth access token.',
        },
        oauth2: {
          type: 'oauth2',
          description: 'Authorization code flow (PKCE S256 accepted; required for public apps).',
          flows: {
            authorizationCode: {
              authorizationUrl: `${urls.app}/oauth/authorize`,
              tokenUrl: `${urls.base}/oauth/token`,
              refreshUrl: `${urls.base}/oauth/token`,
              scopes: SCOPE_DESCRIPTIONS,
            },
          },
        },
        apiKeyQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'api_key',
          description: 'Accepted but not recommended: the answer carries a Warning header.',
        },
      },
      parameters: {
        TenantId: {
          name: 'X-Tenant-ID',
          in: 'header',
          required: true,
          description:
            'The workspace (ws_...) the request acts in. Missing: 400 missing_required_field; not yours: 403 tenant_forbidden.',
          schema: { type: 'string' },
        },
      },
      schemas: {
        Error: toJsonSchema(ErrorBody),
        Problem: toJsonSchema(ProblemBody),
        OAuthError: toJsonSchema(OAuthErrorBody),
      },
      headers: {
        'X-Request-Id': header('The request id (req_...), also in meta.request_id.', 'string'),
        'X-RateLimit-Limit': header('Size of the tightest rate-limit bucket.', 'integer'),
        'X-RateLimit-Remaining': header('Requests left in that bucket.', 'integer'),
        'X-RateLimit-Reset': header('Unix time (s) when that bucket resets.', 'integer'),
        'Retry-After': header('Seconds to wait before retrying.', 'integer'),
      },
    },
  };
}

function header(description: string, type: 'string' | 'integer'): Doc {
  return { description, schema: { type } };
}

function operation(route: RouteDef): Doc {
  const parameters: Doc[] = [];
  if (route.auth.kind === 'credential' && route.auth.tenant)
    parameters.push({ $ref: '#/components/parameters/TenantId' });
  parameters.push(
    ...objectParameters(route.params, 'path'),
    ...objectParameters(route.query, 'query'),
  );
  const op: Doc = {
    operationId: route.operationId,
    summary: route.summary,
    description: describeOperation(route),
    tags: [route.tag],
    ...(parameters.length > 0 ? { parameters } : {}),
    security:
      route.auth.kind === 'public'
        ? []
        : [
            { bearerAuth: [] },
            { oauth2: route.auth.scope ? [route.auth.scope] : [] },
            { apiKeyQuery: [] },
          ],
    responses: responses(route),
  };
  if (route.upload) {
    const fields = toJsonSchema(route.upload, { io: 'input' });
    op.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            ...fields,
            properties: {
              file: {
                type: 'string',
                format: 'binary',
                description: 'The document (PDF, DOCX, MD or TXT), 10 MiB at most',
              },
              ...(fields.properties as object),
            },
            required: ['file', ...((fields.required as string[] | undefined) ?? [])],
          },
        },
      },
    };
  }
  if (route.form) {
    op.requestBody = {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: toJsonSchema(route.form, { io: 'input' }),
        },
      },
    };
  }
  if (route.payload) {
    op.requestBody = {
      required: false,
      content: { 'application/json': { schema: toJsonSchema(route.payload, { io: 'input' }) } },
    };
  }
  if (route.body) {
    op.requestBody = {
      required: true,
      content: { 'application/json': { schema: toJsonSchema(route.body, { io: 'input' }) } },
    };
  }
  return op;
}

/**
 * OpenAPI links from each create (201 on a collection) to the operations on what it created
 * (the collection's path plus one id parameter: get, update, delete), so a client or a stateful
 * tester can chain create -> get -> update -> delete with the id the create answered.
 */
function addLinks(routes: readonly RouteDef[], paths: Record<string, Record<string, Doc>>): void {
  for (const create of routes) {
    if (create.method !== 'POST' || create.status !== 201) continue;
    const itemPath = new RegExp(`^${escapeRegExp(create.path)}/:([A-Za-z_]+)$`);
    const links: Doc = {};
    for (const route of routes) {
      const match = itemPath.exec(route.path);
      if (!match) continue;
      const inherited = Object.fromEntries(
        [...create.path.matchAll(/:([A-Za-z_]+)/g)].map(([, name]) => [
          name!,
          `$request.path.${name!}`,
        ]),
      );
      links[linkName(route.operationId)] = {
        operationId: route.operationId,
        parameters: { ...inherited, [match[1]!]: '$response.body#/data/id' },
        description: `${route.summary}: the object this request created.`,
      };
    }
    if (Object.keys(links).length === 0) continue;
    const path = create.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const created = (paths[path]!.post!.responses as Record<string, Doc>)['201']!;
    created.links = links;
  }
}

function linkName(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function describeOperation(route: RouteDef): string {
  const parts = [route.description ?? route.summary];
  if (route.auth.kind === 'credential') {
    parts.push(
      route.auth.scope ? `Scope: \`${route.auth.scope}\` (or admin).` : 'Any valid credential.',
    );
  } else {
    parts.push('No credential needed.');
  }
  if (route.rateLimit) parts.push(`Per-operation rate limit: \`${route.rateLimit.operation}\`.`);
  return parts.join('\n\n');
}

function objectParameters(schema: z.ZodType | undefined, where: 'path' | 'query'): Doc[] {
  if (!schema) return [];
  const json = toJsonSchema(schema, { io: 'input' });
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, [REQUIRED_BY_HANDLER]: byHandler, ...rest } = property;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name) || byHandler === true,
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

/** The codes a route can answer with, from what it declares and what its kind implies. */
export function routeErrorCodes(route: RouteDef): ErrorCode[] {
  const codes = new Set<ErrorCode>(route.errors ?? []);
  // Query strings are validated strictly on every route (unknown parameters are refused).
  codes.add('invalid_parameter');
  if (route.payload)
    for (const code of ['invalid_request_body', 'payload_too_large'] as const) codes.add(code);
  if (route.body || route.upload) {
    for (const code of [
      'invalid_request_body',
      'missing_required_field',
      'invalid_parameter',
      'payload_too_large',
    ] as const)
      codes.add(code);
  }
  if (route.auth.kind === 'credential') {
    for (const code of [
      'missing_authentication',
      'invalid_token',
      'tenant_forbidden',
      'rate_limit_exceeded',
    ] as const)
      codes.add(code);
    if (route.auth.scope) codes.add('insufficient_scope');
    if (route.auth.tenant) codes.add('missing_required_field');
  }
  return [...codes];
}

function responses(route: RouteDef): Doc {
  const out: Doc = {};
  for (const status of [route.status ?? 200, ...(route.alsoStatus ?? [])])
    out[String(status)] = successResponse(route, status);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of routeErrorCodes(route)) {
    const statusOf = ERROR_CODES[code].status;
    byStatus.set(statusOf, [...(byStatus.get(statusOf) ?? []), code]);
  }
  for (const [errorStatus, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const content: Doc = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
    if (errorStatus === 429)
      content['application/problem+json'] = { schema: { $ref: '#/components/schemas/Problem' } };
    out[String(errorStatus)] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].description}`).join('\n'),
      ...(errorStatus === 429
        ? { headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } }
        : {}),
      content,
    };
  }
  for (const code of route.oauthErrors ?? []) {
    // The OAuth endpoints answer protocol errors in RFC 6749 form, next to the API's own.
    const status = String(OAUTH_ERRORS[code].status);
    const existing = out[status] as Doc | undefined;
    const line = `\`${code}\` (RFC 6749 form): ${OAUTH_ERRORS[code].description}`;
    const oauthSchema = { $ref: '#/components/schemas/OAuthError' };
    if (!existing) {
      out[status] = {
        description: line,
        ...(status === '401' || status === '429'
          ? {
              headers: {
                [status === '401' ? 'WWW-Authenticate' : 'Retry-After']:
                  status === '401'
                    ? { description: 'Basic realm="svc"', schema: { type: 'string' } }
                    : { $ref: '#/components/headers/Retry-After' },
              },
            }
          : {}),
        content: { 'application/json': { schema: oauthSchema } },
      };
      continue;
    }
    existing.description = `${String(existing.description)}\n${line}`;
    const content = existing.content as Record<string, { schema: Doc }>;
    const json = content['application/json']!;
    const options = (json.schema.oneOf as Doc[] | undefined) ?? [json.schema];
    if (!options.some((option) => option.$ref === oauthSchema.$ref)) options.push(oauthSchema);
    json.schema = { oneOf: options };
  }
  out.default = {
    description:
      'Any other error (e.g. 500 internal_server_error, 503 service_unavailable, or 507 insufficient_storage: a write the full disk of the data dir could not take, nothing stored, reads still answer), in the same body.',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  return route.html ? asHtmlPage(out, route.html.redirect) : out;
}

/** A page's errors are pages: every error answer is text/html (its message in the page). */
function asHtmlPage(out: Doc, redirect: string | undefined): Doc {
  const page = { 'text/html': { schema: { type: 'string' } } };
  for (const [status, answer] of Object.entries(out)) {
    if (status.startsWith('2')) continue;
    const doc = answer as Doc;
    doc.description = `An HTML page saying what is wrong (not the API's JSON). ${String(doc.description)}`;
    doc.content = page;
  }
  if (redirect) {
    out['302'] = {
      description: redirect,
      headers: {
        Location: { description: 'Where the browser goes next', schema: { type: 'string' } },
      },
    };
  }
  return out;
}

function successResponse(route: RouteDef, status: number): Doc {
  const headers: Doc = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
  if (route.auth.kind === 'credential') {
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
      headers[name] = { $ref: `#/components/headers/${name}` };
    }
  }
  const schema =
    route.kind === 'object'
      ? dataEnvelope(route.response)
      : route.kind === 'list'
        ? listEnvelope(route.response)
        : route.response;
  const contentType =
    route.kind === 'raw' && route.contentType
      ? route.contentType.split(';')[0]!
      : 'application/json';
  return {
    description: status === 201 ? 'Created' : status === 202 ? 'Accepted' : 'OK',
    headers,
    content: { [contentType]: { schema: toJsonSchema(schema) } },
  };
}

const INFO_DESCRIPTION = `A local, offline sandbox of the agent and workflow automation service.

Conventions: every success is \`{data, meta: {request_id, timestamp}}\`; lists add \`has_more\`, \`total_count\` and \`meta.has_more\`/\`meta.next_cursor\` (both pagination forms). Lists are newest first; \`limit\` is 1-100 (default 20), \`starting_after\` (alias \`cursor\`) takes the id of the last item of the previous page. Every response has \`X-Request-Id\`; authenticated ones have \`X-RateLimit-*\` of the tightest bucket.

Errors are \`{error: {code, message, type, param?, request_id, documentation_url, ...extras}, meta}\`. Codes added to the spec's table: \`not_found\`, \`method_not_allowed\` (405, with Allow), \`payload_too_large\` (413), \`tenant_forbidden\` (403), \`workflow_not_active\`, \`execution_not_cancellable\`, \`webhook_replayed\`, \`conflict\` (409); the codes a workflow step fails with beside the API's (\`underlying_error\`, \`step_results[].error\`): \`secret_not_found\` (404), \`invalid_expression\` (400), \`approval_rejected\` (403, also the error of an agent execution the reviewer rejected); the dashboard's \`csrf_token_invalid\` (403). Every code is listed at \`/docs/errors\`. A value past a bound is 400 \`invalid_parameter\` naming the field, the bound and the value given. A JSON body holding a \`__proto__\` key, or a \`constructor\` key that holds \`prototype\`, is 400 \`invalid_request_body\` though it is valid JSON: such keys could rewrite the prototype of objects (prototype pollution); \`param\` is the key's path (\`steps[0].config.__proto__\`). URLs the daemon calls (webhooks, webhook steps, an agent's \`brain.base_url\`) take http:// or https:// in the sandbox and https:// only in production; another scheme (file:, ftp:) is 400 \`invalid_url\` saying which. Types added for statuses the spec's type table does not cover: \`conflict_error\` (409) and \`timeout_error\` (408).

Rate limits: the tier's request rate per credential (free 20/min burst 5/s, starter 60/min burst 15/s, business 300/min burst 50/s; daily: free 2,000, starter 10,000, business 100,000) and the spec's per-operation limits per workspace; enterprise is business times a daemon setting (default 100). Send \`Accept: application/problem+json\` to get a 429 in the flat problem form.`;
