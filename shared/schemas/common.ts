// Building blocks every resource schema uses: timestamps, ids, envelopes, list queries, errors.
import { z } from 'zod';
import { ERROR_CODES } from '../errors.js';

/**
 * The name of a thing (a workflow, a step, an agent, a key, a workspace...): trimmed, then 1-200
 * characters, so a blank or spaces-only name is refused ("is blank") instead of stored.
 */
export const DisplayName = z.string().trim().min(1).max(200);

export const Timestamp = z
  .string()
  .meta({ description: 'ISO 8601 timestamp in UTC', format: 'date-time' });

export const Meta = z
  .object({
    request_id: z.string().meta({ description: 'Same as the X-Request-Id header (prefix req_)' }),
    timestamp: Timestamp,
  })
  .meta({ title: 'Meta' });

export const ListMeta = z
  .object({
    request_id: z.string(),
    timestamp: Timestamp,
    has_more: z.boolean(),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Id of the last item of the page; null on the last page' }),
  })
  .meta({ title: 'ListMeta' });

/** A list response body as the client reads it, for items of schema T. */
export type ListBody<T extends z.ZodType> = z.infer<ReturnType<typeof listEnvelope<T>>>;

export function dataEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ data, meta: Meta });
}

export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    has_more: z.boolean(),
    total_count: z.number().int(),
    meta: ListMeta,
  });
}

const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [
  keyof typeof ERROR_CODES,
  ...(keyof typeof ERROR_CODES)[],
];

export const ErrorBody = z
  .object({
    error: z
      .object({
        code: z.enum(ERROR_CODE_NAMES),
        message: z.string(),
        type: z.string(),
        param: z.string().optional(),
        request_id: z.string(),
        documentation_url: z.string(),
      })
      .catchall(z.unknown())
      .meta({
        description:
          'Extra fields (required_fields, expires_at, limit, reset_at, ...) depend on the code.',
      }),
    meta: Meta,
  })
  .meta({ title: 'Error' });

export const ProblemBody = z
  .object({
    type: z.literal('rate_limit_exceeded'),
    title: z.string(),
    status: z.literal(429),
    detail: z.string(),
  })
  .meta({
    title: 'Problem',
    description: 'The flat 429 form, sent when the client asks for application/problem+json.',
  });

/** The page size: an integer from 1 to 100 (default 20). */
export const Limit = z
  .string()
  .refine((value) => /^[0-9]+$/.test(value) && Number(value) >= 1 && Number(value) <= 100, {
    message: 'must be an integer from 1 to 100',
  })
  .transform(Number)
  .optional()
  // A query value arrives as text; the document says what the text must be (an integer 1-100),
  // which the refinement above cannot express in JSON Schema.
  .meta({
    description: 'Page size, 1-100 (default 20)',
    type: 'integer',
    minimum: 1,
    maximum: 100,
  });

/** limit + starting_after (alias cursor): both pagination forms of the spec. */
export const ListQuery = z.strictObject({
  limit: Limit,
  starting_after: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Id of the last object of the previous page' }),
  cursor: z.string().min(1).max(100).optional().meta({ description: 'Alias of starting_after' }),
});

/** An object of a workspace as the API returns it: its id and workspace_id, then its own fields. */
export function workspaceObject<Shape extends z.ZodRawShape>(fields: Shape) {
  return z.object({ id: z.string(), workspace_id: z.string(), ...fields });
}

export const DeletedObject = z
  .object({ id: z.string(), deleted: z.literal(true) })
  .meta({ title: 'Deleted' });

export type DeletedView = z.infer<typeof DeletedObject>;
