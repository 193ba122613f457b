// Reads a multipart/form-data upload: exactly one `file` part (kept in memory, size-limited by
// the multipart plugin) and text fields validated with the route's schema.
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import type { z } from 'zod';
import { ApiError, missingFields } from '../domain/errors.js';
import { parseRequestPart } from './validation.js';

export interface Upload<F> {
  filename: string;
  content: Buffer;
  fields: F;
}

export async function readUpload<F>(
  request: FastifyRequest,
  fieldsSchema: z.ZodType<F>,
): Promise<Upload<F>> {
  if (!request.isMultipart()) {
    throw new ApiError(
      'invalid_request_body',
      'Send the upload as multipart/form-data with a "file" part.',
      { param: 'file' },
    );
  }
  const fields: Record<string, string> = {};
  let file: { filename: string; content: Buffer } | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file' || file) {
        await part.toBuffer();
        throw new ApiError(
          'invalid_parameter',
          'Send exactly one file, in the part named "file".',
          { param: part.fieldname },
        );
      }
      file = { filename: part.filename || 'upload', content: await part.toBuffer() };
    } else {
      fields[part.fieldname] = String(part.value);
    }
  }
  if (!file)
    throw missingFields(
      ['file'],
      'Missing the "file" part: attach the document as multipart/form-data.',
    );
  return { ...file, fields: parseRequestPart(fieldsSchema, fields, 'body') };
}
