// zod -> JSON Schema, for Fastify's response serializer (which then sends only the declared
// fields, so an internal field cannot leak) and for the OpenAPI document. Schemas carry
// titles and descriptions, never ids, so every conversion is self-contained (no $refs).
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

export function toJsonSchema(
  schema: z.ZodType,
  options: { io?: 'input' | 'output'; target?: 'draft-7' | 'draft-2020-12' } = {},
): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: options.target ?? 'draft-2020-12',
    io: options.io ?? 'output',
    unrepresentable: 'any',
    reused: 'inline',
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** What Fastify's serializer (fast-json-stringify) compiles. */
export function serializerSchema(schema: z.ZodType): JsonSchema {
  return toJsonSchema(schema, { target: 'draft-7' });
}
