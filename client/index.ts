// svc/client: the typed REST client of svc, for tests (the testing kit's sb.api) and for the
// user's own code against the real service. openapi-fetch does the requests; the types of every
// path, parameter, body and answer are generated from the OpenAPI document at build time
// (scripts/build-client.mjs, openapi-typescript): nothing here restates the API by hand.
import createFetchClient, {
  type Client,
  type ClientOptions,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { paths as generatedPaths } from './openapi-paths.js';

export type { components, operations } from './openapi-paths.js';

/**
 * The generated paths with X-Tenant-ID optional: the client sends the workspace given to
 * createClient on every request, so a call names it only to act in another workspace.
 */
export type paths = {
  [Path in keyof generatedPaths]: {
    [Method in keyof generatedPaths[Path]]: TenantOptional<generatedPaths[Path][Method]>;
  };
};

type TenantOptional<Operation> = Operation extends { parameters: infer Parameters }
  ? Omit<Operation, 'parameters'> & { parameters: HeaderOptional<Parameters> }
  : Operation;

type HeaderOptional<Parameters> = Parameters extends { header: infer Header }
  ? Omit<Parameters, 'header'> & {
      header?: Omit<Header, 'X-Tenant-ID'> & {
        'X-Tenant-ID'?: Header extends { 'X-Tenant-ID': infer Id } ? Id : never;
      };
    }
  : Parameters;

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The paths that have `method` (openapi-typescript marks the others `?: never`). */
type PathsWith<M extends Method> = {
  [Path in keyof paths]: paths[Path] extends { [K in M]: object } ? Path : never;
}[keyof paths];

type KeysOfUnion<T> = T extends unknown ? keyof T : never;
type BodyOf<Expected> = Expected extends { body?: infer Body } ? NonNullable<Body> : never;

/**
 * A body field the operation does not have is `never`, so a misspelt one (`stauts`,
 * `descripton`) is a type error naming it. openapi-fetch infers the whole init object as a type
 * parameter, which lets any extra property through; this intersection takes them back out.
 */
type NoExtraBodyFields<Init, Expected> = Init extends { body: infer Body }
  ? Body extends readonly unknown[]
    ? unknown
    : { body: { [K in Exclude<keyof Body, KeysOfUnion<BodyOf<Expected>>>]: never } }
  : unknown;

type StrictMethod<M extends Method> = <
  Path extends PathsWith<M>,
  Init extends MaybeOptionalInit<paths[Path], M>,
>(
  url: Path,
  ...init: undefined extends MaybeOptionalInit<paths[Path], M>
    ? [(Init & NoExtraBodyFields<Init, MaybeOptionalInit<paths[Path], M>>)?]
    : [Init & NoExtraBodyFields<Init, MaybeOptionalInit<paths[Path], M>>]
) => Promise<FetchResponse<NonNullable<paths[Path][M]>, Init, `${string}/${string}`>>;

/**
 * openapi-fetch's client, with request bodies checked field by field: a field the operation
 * does not have is a type error (at run time, the API refuses it with 400 and its name).
 */
export type SvcClient = Omit<Client<paths>, 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH'> & {
  GET: StrictMethod<'get'>;
  PUT: StrictMethod<'put'>;
  POST: StrictMethod<'post'>;
  DELETE: StrictMethod<'delete'>;
  PATCH: StrictMethod<'patch'>;
};

export interface SvcClientOptions {
  /** The service's address, e.g. http://127.0.0.1:7717 (a trailing /v1 is dropped: paths carry it). */
  baseUrl: string;
  /** An API key (sk_test_... or sk_live_...), sent as Authorization: Bearer. */
  key: string;
  /** The workspace (ws_...) every request acts in, sent as X-Tenant-ID. */
  workspace?: string;
  /** More headers on every request. */
  headers?: Record<string, string>;
  /** A fetch of your own (a proxy, a recorder); the global fetch by default. */
  fetch?: ClientOptions['fetch'];
}

/**
 * A client for the svc REST API: `api.GET('/v1/workflows')`, `api.POST('/v1/webhooks', { body })`
 * answer `{ data, error, response }`, each typed from the OpenAPI document.
 */
export function createClient(options: SvcClientOptions): SvcClient {
  if (!options.baseUrl)
    throw new TypeError('createClient needs baseUrl, e.g. http://127.0.0.1:7717');
  if (!options.key) throw new TypeError('createClient needs key: an API key (sk_test_...)');
  const headers: Record<string, string> = {
    ...options.headers,
    authorization: `Bearer ${options.key}`,
  };
  if (options.workspace) headers['x-tenant-id'] = options.workspace;
  return createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, ''),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  }) as unknown as SvcClient; // the same client: only its types are stricter
}
