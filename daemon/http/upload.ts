// Reads a multipart/form-data upload: exactly one `file` part (kept in memory, size-limited by
// the multipart plugin) and text fields validated with the route's schema. A body the multipart
// parser cannot read (no or wrong boundary, no closing boundary, a truncated part, garbage) is
// 400 invalid_request_body; nothing is read into the route, so nothing is stored.
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
  try {
    file = await readParts(request, fields);
  } catch (error) {
    throw asUploadError(error);
  }
  if (!file)
    throw missingFields(
      ['file'],
      'Missing the "file" part: attach the document as multipart/form-data.',
    );
  return { ...file, fields: parseRequestPart(fieldsSchema, fields, 'body') };
}

async function readParts(
  request: FastifyRequest,
  fields: Record<string, string>,
): Promise<{ filename: string; content: Buffer } | undefined> {
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
  return file;
}

/** The plugin's own limit errors keep their meaning; a parser failure is the client's body. */
function asUploadError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('FST_')) return error;
  return new ApiError(
    'invalid_request_body',
    'The multipart body could not be read (missing or wrong boundary, no closing boundary, or a truncated part). Send multipart/form-data with a "file" part.',
  );
}
