// The control channel's single-call lane answers exactly what tRPC's own adapter answers: the
// same requests go to an app with the lane and to one without it, and status, content type,
// vary header and body must match, for answers and errors alike. Requests the lane leaves to
// tRPC (batches, wrong methods, bad JSON, ...) must come out the same too.
import test from 'ava';
import Fastify, { type FastifyInstance, type FastifyRequest, type InjectOptions } from 'fastify';
import { initTRPC, TRPCError } from '@trpc/server';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import { z } from 'zod';
import { singleCallLane } from '../../daemon/control/single-call.js';

interface Ctx {
  caller: string | undefined;
}

const t = initTRPC.context<Ctx>().create({
  errorFormatter: ({ shape, error }) => ({
    ...shape,
    data: { ...shape.data, stack: undefined, reason: error.cause?.message },
  }),
});

const router = t.router({
  clock: t.router({
    show: t.procedure.query(({ ctx }) => ({ now: '2026-01-01T00:00:00.000Z', caller: ctx.caller })),
  }),
  echo: t.procedure
    .input(z.object({ text: z.string().max(5) }).optional())
    .query(({ input }) => ({ got: input?.text ?? null })),
  /** An answer JSON cannot hold. */
  unserialisable: t.procedure.query(() => ({ n: 1n })),
  keys: t.router({
    create: t.procedure
      .input(z.object({ name: z.string(), scopes: z.array(z.string()).default([]) }))
      .mutation(({ input }) => ({ id: `key_${input.name}`, scopes: input.scopes })),
    revoke: t.procedure.input(z.object({ id: z.string() })).mutation(({ input }) => {
      throw new TRPCError({ code: 'NOT_FOUND', message: `No key ${input.id}.` });
    }),
    broken: t.procedure.mutation(() => {
      throw new Error('disk on fire');
    }),
  }),
});

/** How many calls each app's lane answered (tRPC's adapter passes `info` to createContext). */
const answeredByLane = { count: 0 };

async function buildApp(withLane: boolean): Promise<FastifyInstance> {
  const app = Fastify();
  const createContext = (opts: { req: FastifyRequest; info?: unknown }): Ctx => {
    if (withLane && opts.info === undefined) answeredByLane.count += 1;
    return { caller: opts.req.headers['x-caller'] as string | undefined };
  };
  await app.register(async (scope) => {
    if (withLane) scope.addHook('preHandler', singleCallLane(router, createContext));
    await scope.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: { router, createContext },
    });
  });
  await app.ready();
  return app;
}

const json = { 'content-type': 'application/json' };
/** A POST to the control channel (a mutation's shape), JSON unless other headers are given. */
const post = (url: string, payload: string, headers: Record<string, string> = json) =>
  ({ method: 'POST', url, headers, payload }) satisfies InjectOptions;
const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));

const cases: { name: string; lane: boolean; request: InjectOptions }[] = [
  {
    name: 'a query',
    lane: true,
    request: { url: '/trpc/clock.show', headers: { 'x-caller': 'cli' } },
  },
  {
    name: 'a query with input',
    lane: true,
    request: { url: `/trpc/echo?input=${input({ text: 'hi' })}` },
  },
  { name: 'a query without its optional input', lane: true, request: { url: '/trpc/echo' } },
  {
    name: 'an invalid input',
    lane: true,
    request: { url: `/trpc/echo?input=${input({ text: 'too long' })}` },
  },
  {
    name: 'a mutation',
    lane: true,
    request: post('/trpc/keys.create', '{"name":"ci"}'),
  },
  {
    name: 'a mutation with a charset',
    lane: true,
    request: post('/trpc/keys.create', '{"name":"ci","scopes":["admin"]}', {
      'content-type': 'application/json; charset=utf-8',
    }),
  },
  {
    name: 'a mutation without its input',
    lane: true,
    request: post('/trpc/keys.create', ''),
  },
  {
    name: 'a TRPCError',
    lane: true,
    request: post('/trpc/keys.revoke', '{"id":"key_x"}'),
  },
  {
    name: 'an unexpected error',
    lane: true,
    request: post('/trpc/keys.broken', ''),
  },
  {
    name: 'a batch',
    lane: false,
    request: { url: `/trpc/clock.show,echo?batch=1&input=${input({ 1: { text: 'a' } })}` },
  },
  {
    name: 'a query sent as POST',
    lane: false,
    request: post('/trpc/clock.show', ''),
  },
  { name: 'a mutation sent as GET', lane: false, request: { url: '/trpc/keys.create' } },
  { name: 'an unknown procedure', lane: false, request: { url: '/trpc/nope.nothing' } },
  { name: 'input that is not JSON', lane: false, request: { url: '/trpc/echo?input=%7Bnope' } },
  {
    name: 'a body that is not JSON',
    lane: false,
    request: post('/trpc/keys.create', '{nope'),
  },
  {
    name: 'a mutation without a content type',
    lane: false,
    request: post('/trpc/keys.create', '{"name":"ci"}', {}),
  },
  {
    name: 'a streaming request',
    lane: false,
    request: { url: '/trpc/clock.show', headers: { 'trpc-accept': 'application/jsonl' } },
  },
];

let withLane: FastifyInstance;
let withoutLane: FastifyInstance;

test.before(async () => {
  withLane = await buildApp(true);
  withoutLane = await buildApp(false);
});

test.after.always(async () => {
  await withLane.close();
  await withoutLane.close();
});

for (const { name, lane, request } of cases) {
  test.serial(
    `${name}: the same answer as tRPC's adapter${lane ? ', from the lane' : ', left to tRPC'}`,
    async (t) => {
      const before = answeredByLane.count;
      const [fast, reference] = await Promise.all([
        withLane.inject(request),
        withoutLane.inject(request),
      ]);
      t.is(answeredByLane.count - before, lane ? 1 : 0);
      t.is(fast.statusCode, reference.statusCode);
      t.is(fast.headers['content-type'], reference.headers['content-type']);
      t.is(fast.headers.vary, reference.headers.vary);
      if (String(reference.headers['content-type']).startsWith('application/json')) {
        t.deepEqual(fast.json(), reference.json());
      } else {
        t.is(fast.body, reference.body);
      }
    },
  );
}

test('an answer JSON cannot hold is a 500 INTERNAL_SERVER_ERROR, as from tRPC', async (t) => {
  const fast = await withLane.inject({ url: '/trpc/unserialisable' });
  const reference = await withoutLane.inject({ url: '/trpc/unserialisable' });
  t.is(fast.statusCode, 500);
  t.is(reference.statusCode, 500);
  t.like(fast.json(), { error: { data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500 } } });
  t.like(reference.json(), { error: { data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500 } } });
});

test('the lane answers with tRPC error codes and HTTP statuses', async (t) => {
  const revoked = await withLane.inject(post('/trpc/keys.revoke', '{"id":"key_x"}'));
  t.is(revoked.statusCode, 404);
  t.like(revoked.json(), {
    error: {
      message: 'No key key_x.',
      code: -32004,
      data: { code: 'NOT_FOUND', httpStatus: 404, path: 'keys.revoke' },
    },
  });
  const broken = await withLane.inject(post('/trpc/keys.broken', ''));
  t.is(broken.statusCode, 500);
  t.like(broken.json(), {
    error: { data: { code: 'INTERNAL_SERVER_ERROR', reason: 'disk on fire' } },
  });
});
