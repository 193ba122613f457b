// Response serializers (fast-json-stringify, through Fastify's own compiler factory, used here
// as it is), each compiled on its route's first answer and once per process. Compiling every
// route's serializer at start cost a daemon about a fifth of its start (the zod -> JSON Schema
// conversion and the compile, ~140 routes and their HEAD twins), and a process answers on few
// of them: a test's daemon on a handful. A process that builds many apps (svc/testing: a
// sandbox per test; a store swap) shares them: a compiled serializer is a pure function of its
// schema, and register.ts keeps each route's schema object.
import SerializerSelector from '@fastify/fast-json-stringify-compiler';

export type Serializer = (doc: unknown) => string;

/** Fastify's default compiler, as Fastify calls it: no shared schemas, no serializer options. */
const compile = SerializerSelector()({}, undefined) as unknown as (route: {
  schema: object;
}) => Serializer;
const compiled = new WeakMap<object, Serializer>();

/** The serializer of this schema object, compiled once per process. */
export function serializerFor(schema: object): Serializer {
  let serializer = compiled.get(schema);
  if (!serializer) {
    serializer = compile({ schema });
    compiled.set(schema, serializer);
  }
  return serializer;
}

/** A serializer that makes its schema and compiles it when it is first called. */
export function deferredSerializer(schema: () => object): Serializer {
  let serializer: Serializer | undefined;
  return (doc) => (serializer ??= serializerFor(schema()))(doc);
}
