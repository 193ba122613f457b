// Property-based test of the REST API from the document it serves (the idea of Schemathesis, in
// the project's own suite): for every operation, requests generated from its parameter and body
// schemas (valid ones, and single mutations the schema calls invalid) are sent to a real daemon,
// and every answer must be
//   - never a 5xx;
//   - what the document says for that status (its content type, and a JSON body valid against
//     its schema);
//   - for a request the schema calls invalid: refused (4xx), never carried out;
//   - for a request the schema calls valid: not refused for a reason the schema could have
//     stated (the validation codes invalid_parameter, invalid_request_body,
//     missing_required_field), except the refusals listed in NOT_STATABLE, each with the reason
//     no JSON Schema can say it.
// The seed is fixed (a failure reproduces: fast-check prints the counterexample and its path) and
// the number of runs bounded. Path parameters are real ids of objects made in test.before() or,
// now and then, unknown ones (404). Upload (multipart) operations are left to knowledge tests.
import test from 'ava';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { startDaemon, type TestDaemon } from '../helpers/daemon.js';
import { arbitraryFor, wrongTypes, type Schema } from '../helpers/schema-arbitrary.js';
import { activeAgent, apiFor } from '../helpers/workflows.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Requests per operation: valid ones and mutated ones. */
const RUNS = 12;
const SEED = 20261129;
const VALIDATION_CODES = new Set([
  'invalid_parameter',
  'invalid_request_body',
  'missing_required_field',
]);

/**
 * Refusals of schema-valid requests that no schema could state, by operation and field: each
 * depends on stored state or on a relation between values.
 */
const NOT_STATABLE: Record<string, string> = {
  // A cursor must be the id of an object of that list (stored state).
  starting_after: 'a cursor names an object of the list',
  cursor: 'a cursor names an object of the list',
  // Whether the named file stays inside the cassette folder once resolved (.., symbolic links).
  'brain.cassette': 'the file system decides where a relative path leads',
};

let daemon: TestDaemon;
let doc: any;
let auth: { key: string; tenant: string };
/** Real ids for path parameters, by parameter name. */
const ids: Record<string, string> = {};
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: false, validateFormats: true }));

test.before(async () => {
  daemon = await startDaemon();
  doc = (await daemon.request('/openapi.json')).body;
  const { key, workspaceId } = await daemon.operator();
  auth = { key, tenant: workspaceId };
  ids.workspace_id = workspaceId;
  const api = await apiFor(daemon, workspaceId);
  const agent = await activeAgent(api, { autonomy_level: 'L4' });
  ids.agent_id = agent.id;
  const workflow = await api('POST', '/workflows', {
    name: 'Property test',
    status: 'active',
    trigger: { type: 'webhook', config: { path: 'property-test' } },
    steps: [
      {
        id: 'answer',
        name: 'Answer',
        type: 'agent_action',
        agent_id: agent.id,
        config: { action: 'reply' },
      },
    ],
  });
  if (workflow.status !== 201) throw new Error(`workflow: ${JSON.stringify(workflow.body)}`);
  ids.workflow_id = workflow.body.data.id;
  ids.path = 'property-test';
  const run = await api('POST', `/workflows/${ids.workflow_id}/execute`, { input: { text: 'hi' } });
  ids.execution_id = run.body.data.execution_id ?? run.body.data.id;
  const webhook = await api('POST', '/webhooks', {
    url: 'http://127.0.0.1:9/property',
    events: ['agent.created'],
  });
  ids.webhook_id = webhook.body.data.id;
  const events = await api('GET', '/events?limit=1');
  ids.event_id = events.body.data[0].id;
  const integration = await api('POST', '/integrations', { type: 'slack', name: 'Property' });
  if (integration.status === 201) ids.integration_id = integration.body.data.id;
});

test.after.always(async () => {
  await daemon?.stop();
});

/** Follows a local $ref. */
function resolve(node: Schema): Schema {
  if (!node || typeof node.$ref !== 'string') return node;
  return (node.$ref as string)
    .slice(2)
    .split('/')
    .reduce((value: any, part: string) => value?.[part], doc);
}

interface Operation {
  method: string;
  path: string;
  op: any;
}

function operations(): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, op })),
  );
}

/** A request: path values, query, body (JSON or form), and whether the schema calls it valid. */
interface Sample {
  pathValues: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  valid: boolean;
  /** What the mutation changed (for the failure message). */
  mutation?: string;
}

function bodySchema(op: any): { type: string; schema: Schema } | undefined {
  const content = op.requestBody?.content as Record<string, { schema: Schema }> | undefined;
  if (!content) return undefined;
  const [type, entry] = Object.entries(content)[0]!;
  return { type, schema: resolve(entry.schema) };
}

function sampleArbitrary({ op }: Operation): fc.Arbitrary<Sample> {
  const parameters = ((op.parameters ?? []) as Schema[]).map(resolve);
  const pathParameters = parameters.filter((p) => p.in === 'path');
  const queryParameters = parameters.filter((p) => p.in === 'query');
  const pathValues = fc.record(
    Object.fromEntries(
      pathParameters.map((p) => [
        p.name,
        ids[p.name]
          ? fc.oneof({ arbitrary: fc.constant(ids[p.name]!), weight: 4 }, fc.constant('unknown_1'))
          : fc.constant('unknown_1'),
      ]),
    ),
  ) as fc.Arbitrary<Record<string, string>>;
  const queryShape: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(
    queryParameters.map((p) => [p.name, arbitraryFor(p.schema ?? {}, resolve)]),
  );
  const query = fc.record(queryShape, {
    requiredKeys: queryParameters.filter((p) => p.required).map((p) => p.name as string),
  }) as fc.Arbitrary<Record<string, unknown>>;
  const body = bodySchema(op);
  const bodyValue = body ? arbitraryFor(body.schema, resolve) : fc.constant(undefined);
  const valid = fc.record({ pathValues, query, body: bodyValue, valid: fc.constant(true) });
  return fc.oneof(
    valid,
    valid.chain((sample) => mutate(sample, queryParameters, body?.schema)),
  );
}

/** One change that the schema refuses: an unknown or mistyped query value, a body field broken. */
function mutate(sample: Sample, query: Schema[], body: Schema | undefined): fc.Arbitrary<Sample> {
  const options: fc.Arbitrary<Sample>[] = [
    fc.constant({
      ...sample,
      query: { ...sample.query, unexpected_parameter: 'x' },
      valid: false,
      mutation: 'unknown query parameter',
    }),
  ];
  for (const parameter of query) {
    const text = 'not-a-valid-value-¿';
    if (!ajv.validate(parameter.schema ?? {}, text)) {
      options.push(
        fc.constant({
          ...sample,
          query: { ...sample.query, [parameter.name]: text },
          valid: false,
          mutation: `query ${parameter.name}`,
        }),
      );
    }
  }
  if (body && sample.body && typeof sample.body === 'object' && !Array.isArray(sample.body)) {
    const fields = sample.body as Record<string, unknown>;
    for (const name of Object.keys((body.properties ?? {}) as object)) {
      for (const wrong of wrongTypes) {
        const changed = { ...fields, [name]: wrong };
        if (!ajv.validate(body, changed)) {
          options.push(
            fc.constant({
              ...sample,
              body: changed,
              valid: false,
              mutation: `body.${name} = ${JSON.stringify(wrong)}`,
            }),
          );
          break;
        }
      }
    }
    for (const name of (body.required ?? []) as string[]) {
      const { [name]: _left, ...rest } = fields;
      options.push(
        fc.constant({ ...sample, body: rest, valid: false, mutation: `body without ${name}` }),
      );
    }
    if (body.additionalProperties === false) {
      options.push(
        fc.constant({
          ...sample,
          body: { ...fields, unexpected_field: 1 },
          valid: false,
          mutation: 'unknown body field',
        }),
      );
    }
  }
  return fc.oneof(...options);
}

async function send(operation: Operation, sample: Sample) {
  let path = operation.path;
  for (const [name, value] of Object.entries(sample.pathValues)) {
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  }
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(sample.query)) {
    if (value !== undefined)
      search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const url = search.size > 0 ? `${path}?${search}` : path;
  const body = bodySchema(operation.op);
  const headers: Record<string, string> = {};
  let payload: string | undefined;
  if (body && sample.body !== undefined) {
    headers['content-type'] = body.type;
    payload =
      body.type === 'application/x-www-form-urlencoded'
        ? new URLSearchParams(
            Object.entries(sample.body as Record<string, unknown>).map(
              ([k, v]): [string, string] => [k, String(v)],
            ),
          ).toString()
        : JSON.stringify(sample.body);
  }
  return daemon.request(url, {
    method: operation.method.toUpperCase(),
    headers,
    ...(payload === undefined ? {} : { body: payload }),
    redirect: 'manual',
    key: auth.key,
    tenant: auth.tenant,
  });
}

/** What is wrong with an answer, or undefined. */
function problem(
  operation: Operation,
  sample: Sample,
  answer: { status: number; headers: Headers; body: any; text: string },
): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 300)}`;
  const documented =
    operation.op.responses[String(answer.status)] ?? operation.op.responses.default;
  if (!documented) return `status ${answer.status} is not documented`;
  const response = resolve(documented);
  const contentType = (answer.headers.get('content-type') ?? '').split(';')[0]!;
  if (response.content && answer.text !== '') {
    const entry = response.content[contentType];
    if (!entry)
      return `${answer.status} answered ${contentType}, documented ${Object.keys(response.content).join(', ')}`;
    if (
      contentType === 'application/json' &&
      !ajv.validate(resolveDeep(entry.schema), answer.body)
    ) {
      return `${answer.status} body breaks its schema: ${ajv.errorsText(ajv.errors)}; body ${answer.text.slice(0, 300)}`;
    }
  }
  if (!sample.valid && answer.status < 400 && answer.status !== 302) {
    return `a request the schema refuses (${sample.mutation}) answered ${answer.status}`;
  }
  if (sample.valid && answer.status === 400) {
    const error = answer.body?.error;
    const param: string = error?.param ?? '';
    const field = param in NOT_STATABLE ? param : param.split('.')[0]!;
    if (VALIDATION_CODES.has(error?.code) && !(field in NOT_STATABLE)) {
      return `a request the schema accepts was refused: ${error.code} ${param}: ${error.message}`;
    }
  }
  return undefined;
}

const resolved = new Map<Schema, Schema>();
/** The schema with every local $ref inlined (ajv compiles it standalone). */
function resolveDeep(schema: Schema): Schema {
  let done = resolved.get(schema);
  if (done) return done;
  const walk = (node: unknown, depth: number): unknown => {
    if (depth > 40) return {};
    if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1));
    if (!node || typeof node !== 'object') return node;
    const object = resolve(node as Schema);
    return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, walk(v, depth + 1)]));
  };
  done = walk(schema, 0) as Schema;
  resolved.set(schema, done);
  return done;
}

test('every operation, from its schemas: no 5xx, answers as documented, schema-refused requests refused, schema-valid ones not refused for a reason the schema could state', async (t) => {
  const covered: string[] = [];
  const problems: string[] = [];
  for (const operation of operations()) {
    if (bodySchema(operation.op)?.type === 'multipart/form-data') continue;
    covered.push(`${operation.method} ${operation.path}`);
    // The samples of a fixed seed, every one sent: the report lists every problem at once.
    for (const sample of fc.sample(sampleArbitrary(operation), { numRuns: RUNS, seed: SEED })) {
      const found = problem(operation, sample, await send(operation, sample));
      if (found) {
        problems.push(
          `${operation.method.toUpperCase()} ${operation.path}: ${found}\n    request: ${JSON.stringify(sample)}`,
        );
      }
    }
  }
  t.true(covered.length >= 55, `${covered.length} operations covered`);
  t.deepEqual(problems, [], problems.join('\n'));
  t.log(`${covered.length} operations, ${RUNS} requests each (seed ${SEED})`);
});
