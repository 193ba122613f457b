// A small client for the REST API (ky): sends the credential and tenant, unwraps {data}, and
// turns error bodies into ApiRequestError with the spec's code. Used by the CLI; exported for
// scripts and tests.
import ky, { HTTPError, type KyInstance } from 'ky';
import { ApiRequestError, type ApiErrorBody } from './api-error.js';

export { ApiRequestError, type ApiErrorBody } from './api-error.js';

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string;
  tenantId?: string | undefined;
  timeoutMs?: number;
}

export type Query = Record<string, string | number | boolean | undefined>;

/** A JSON body, a query, or a multipart form (uploads). */
export interface RequestInit {
  body?: unknown;
  query?: Query;
  form?: FormData;
}

export class ApiClient {
  private readonly http: KyInstance;

  constructor(private readonly options: ApiClientOptions) {
    this.http = ky.create({
      prefixUrl: options.baseUrl.replace(/\/$/, ''),
      timeout: options.timeoutMs ?? 60_000,
      retry: 0,
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        accept: 'application/json',
        ...(options.tenantId ? { 'x-tenant-id': options.tenantId } : {}),
      },
    });
  }

  get tenantId(): string | undefined {
    return this.options.tenantId;
  }

  /** The whole response body ({data, meta} or a list page). */
  async request<T = unknown>(method: string, path: string, init: RequestInit = {}): Promise<T> {
    const searchParams = Object.fromEntries(
      Object.entries(init.query ?? {}).filter(
        (entry): entry is [string, string | number | boolean] => entry[1] !== undefined,
      ),
    );
    try {
      const response = await this.http(path.replace(/^\//, ''), {
        method,
        searchParams,
        ...(init.body === undefined ? {} : { json: init.body }),
        ...(init.form ? { body: init.form } : {}),
      });
      const text = await response.text();
      return (text ? JSON.parse(text) : undefined) as T;
    } catch (error) {
      if (error instanceof HTTPError) {
        const body = (await error.response.json().catch(() => undefined)) as
          ApiErrorBody | undefined;
        throw new ApiRequestError(
          error.response.status,
          body?.error?.code ?? 'http_error',
          body?.error?.message ?? `HTTP ${error.response.status}`,
          body,
        );
      }
      throw error;
    }
  }

  async data<T = unknown>(method: string, path: string, init: RequestInit = {}): Promise<T> {
    const body = await this.request<{ data: T }>(method, path, init);
    return body.data;
  }
}
