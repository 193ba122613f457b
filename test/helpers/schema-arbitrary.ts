// Values generated from the JSON Schemas of the served OpenAPI document (fast-check arbitraries),
// for the property-based API test: what the schema calls valid, and single mutations of it that
// the schema calls invalid. Covers the keywords the document uses; a keyword it does not know is
// left out of the generated value and the validator (ajv) has the last word on each sample.
import fc from 'fast-check';

export type Schema = Record<string, any>;

/** Longest generated string or array: enough to cross a boundary, short enough to send fast. */
const MAX_TEXT = 40;
const MAX_ITEMS = 3;

export function arbitraryFor(
  schema: Schema,
  resolve: (node: Schema) => Schema,
): fc.Arbitrary<unknown> {
  const node = resolve(schema);
  if ('const' in node) return fc.constant(node.const);
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as unknown[]));
  const branches = (node.anyOf ?? node.oneOf) as Schema[] | undefined;
  if (branches) return fc.oneof(...branches.map((branch) => arbitraryFor(branch, resolve)));
  const types: string[] = Array.isArray(node.type) ? node.type : node.type ? [node.type] : [];
  if (types.length > 1) {
    return fc.oneof(...types.map((type) => arbitraryFor({ ...node, type }, resolve)));
  }
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({
        min: bound(node.minimum, node.exclusiveMinimum, 1, -1_000_000),
        max: bound(node.maximum, node.exclusiveMaximum, -1, 1_000_000),
      });
    case 'number':
      return fc.double({
        min: node.minimum ?? -1_000_000,
        max: node.maximum ?? 1_000_000,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string':
      return stringFor(node);
    case 'array':
      return fc.array(arbitraryFor(node.items ?? {}, resolve), {
        minLength: node.minItems ?? 0,
        maxLength: Math.max(node.minItems ?? 0, Math.min(node.maxItems ?? MAX_ITEMS, MAX_ITEMS)),
      });
    case 'object':
      return objectFor(node, resolve);
    default:
      // No type: any JSON value.
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function bound(inclusive: unknown, exclusive: unknown, step: number, fallback: number): number {
  if (typeof inclusive === 'number') return Math.ceil(inclusive);
  if (typeof exclusive === 'number') return exclusive + step;
  return fallback;
}

function stringFor(node: Schema): fc.Arbitrary<string> {
  const minLength: number = node.minLength ?? 0;
  const maxLength: number = Math.max(minLength, Math.min(node.maxLength ?? MAX_TEXT, MAX_TEXT));
  if (node.format === 'date-time')
    return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (node.format === 'uri' || node.format === 'url') {
    return fc.webUrl({ validSchemes: ['http'] });
  }
  if (typeof node.pattern === 'string') {
    const pattern = new RegExp(node.pattern);
    return fc
      .stringMatching(pattern)
      .filter((text) => text.length >= minLength && text.length <= (node.maxLength ?? Infinity));
  }
  return fc.string({ minLength, maxLength });
}

function objectFor(node: Schema, resolve: (node: Schema) => Schema): fc.Arbitrary<unknown> {
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  const shape = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [name, arbitraryFor(property, resolve)]),
  );
  if (Object.keys(shape).length === 0 && node.additionalProperties !== false) {
    // A map: its values as additionalProperties says (any JSON value when it says nothing).
    const values =
      node.additionalProperties && typeof node.additionalProperties === 'object'
        ? arbitraryFor(node.additionalProperties as Schema, resolve)
        : fc.jsonValue({ maxDepth: 1 });
    const keys = node.propertyNames
      ? (arbitraryFor(
          { type: 'string', ...resolve(node.propertyNames as Schema) },
          resolve,
        ) as fc.Arbitrary<string>)
      : fc.string({ minLength: 1, maxLength: 10 });
    return fc.dictionary(keys, values, { maxKeys: MAX_ITEMS });
  }
  return fc.record(shape, { requiredKeys: (node.required ?? []) as string[] });
}

/** A value of another JSON type than `value`, to put where the schema expects `value`'s type. */
export const wrongTypes: unknown[] = ['a string', 12345, true, null, [1, 2], { unexpected: 1 }];
