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
  return simplifyNullables(toJsonSchema(schema, { target: 'draft-7' })) as JsonSchema;
}

/**
 * zod writes `.nullable()` as anyOf [X, {type: null}]; the serializer would validate each value
 * against the branches to pick one. The equivalent `type: [X, "null"]` is written directly.
 */
function simplifyNullables(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplifyNullables);
  if (!node || typeof node !== 'object') return node;
  const entries = Object.entries(node as Record<string, unknown>).map(
    ([key, value]) => [key, simplifyNullables(value)] as const,
  );
  const schema = Object.fromEntries(entries) as JsonSchema;
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (anyOf?.length === 2) {
    const nullIndex = anyOf.findIndex(
      (branch) => branch.type === 'null' && Object.keys(branch).length === 1,
    );
    const other = anyOf[1 - nullIndex];
    if (nullIndex !== -1 && other && typeof other.type === 'string' && !('anyOf' in other)) {
      const { anyOf: _anyOf, ...rest } = schema;
      return { ...rest, ...other, type: [other.type, 'null'] };
    }
  }
  return schema;
}
