// Routes that need no credential: health, the OpenAPI document (twice, as decided) and the
// error reference that every error's documentation_url points into.
import { z } from 'zod';
import { ERROR_CODES } from '../../shared/errors.js';
import { rawRoute, type RouteDef } from '../http/route.js';
import type { ServerUrls } from '../domain/urls.js';
import { buildOpenApiDocument } from '../http/openapi.js';
import type { ApiTag } from '../http/rest-module.js';

const Health = z.object({ status: z.literal('ok'), version: z.string() }).meta({ title: 'Health' });
const OpenApiDoc = z.record(z.string(), z.unknown()).meta({ title: 'OpenAPI document' });

export const systemTag: ApiTag = {
  name: 'System',
  description: 'Health, this document and the error reference.',
};

/** `served`: every route the app serves, these included, and the tags of their modules. */
export function publicRoutes(
  served: () => { routes: readonly RouteDef[]; tags: readonly ApiTag[] },
  urls: ServerUrls,
  version = '',
): RouteDef[] {
  let document: Record<string, unknown> | undefined;
  const openapi = () => {
    if (!document) {
      const { routes, tags } = served();
      document = buildOpenApiDocument(routes, urls, tags);
    }
    return document;
  };
  const openApiRoute = (path: string, operationId: string) =>
    rawRoute({
      method: 'GET',
      path,
      operationId,
      summary: 'This OpenAPI 3.1 document',
      tag: systemTag.name,
      auth: { kind: 'public' },
      response: OpenApiDoc,
      handler: () => openapi(),
    });
  return [
    rawRoute({
      method: 'GET',
      path: '/healthz',
      operationId: 'getHealth',
      summary: 'Liveness check',
      description: 'Answers 200 once the daemon is ready to serve.',
      tag: systemTag.name,
      auth: { kind: 'public' },
      response: Health,
      handler: () => ({ status: 'ok' as const, version }),
    }),
    openApiRoute('/openapi.json', 'getOpenApiDocument'),
    openApiRoute('/v1/openapi.json', 'getOpenApiDocumentV1'),
    rawRoute({
      method: 'GET',
      path: '/docs/errors',
      operationId: 'getErrorReference',
      summary: 'Error code reference (HTML)',
      description: 'Every error code with its HTTP status and type; documentation_url links here.',
      tag: systemTag.name,
      auth: { kind: 'public' },
      contentType: 'text/html; charset=utf-8',
      response: z.string(),
      handler: () => errorReferenceHtml(),
    }),
  ];
}

function errorReferenceHtml(): string {
  const rows = Object.entries(ERROR_CODES)
    .map(
      ([code, info]) =>
        `<tr id="${code}"><td><code>${code}</code></td><td>${info.status}</td><td>${info.type}</td><td>${escapeHtml(info.description)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc error reference</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}tr:target{background:#ffd}</style>
</head><body><h1>Error codes</h1>
<p>Every error body is <code>{error: {code, message, type, param, request_id, documentation_url, ...}}</code>.</p>
<table><thead><tr><th>code</th><th>status</th><th>type</th><th>meaning</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
