// Response serializers compiled once per schema per process. Fastify compiles every route's
// response schema (fast-json-stringify, through its own compiler factory, used here as it is)
// for each app it builds; a process that builds many apps (svc/testing: a sandbox per test; a
// store swap) compiled the same schemas each time: half of a test sandbox's start. The schemas
// are the same objects each time (register.ts keeps them per route definition), and a compiled
// serializer is a pure function of its schema, so it is shared between the apps.
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type Serializer = (doc: unknown) => string;

const compiled = new WeakMap<object, Serializer>();
const defaultFactory = SerializerSelector();

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || Object.keys(value).length === 0;
}

/** Fastify's schemaController option: its default serializers, compiled once per schema. */
export const cachedSerializers: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: {
    buildSerializer(externalSchemas, options) {
      const compile = defaultFactory(externalSchemas, options);
      // Shared schemas or serializer options would make a serializer depend on more than its
      // schema: then nothing is shared (the daemon uses neither).
      if (!isEmpty(externalSchemas) || !isEmpty(options)) return compile;
      return (route) => {
        const schema = route.schema;
        if (!schema || typeof schema !== 'object') return compile(route);
        let serializer = compiled.get(schema);
        if (!serializer) {
          serializer = compile(route);
          compiled.set(schema, serializer);
        }
        return serializer;
      };
    },
  },
};
