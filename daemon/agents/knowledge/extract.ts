// Knowledge files: the format is decided by the content (PDF magic, a DOCX zip with
// word/document.xml, UTF-8 text), and must agree with the file name; then the text is
// extracted with pdfjs (PDF) or mammoth (DOCX).
import { ApiError } from '../../domain/errors.js';
import { MAX_DOCX_UNCOMPRESSED_BYTES } from './limits.js';

export type KnowledgeFormat = 'pdf' | 'docx' | 'md' | 'txt';

const EXTENSIONS: Record<string, KnowledgeFormat> = {
  pdf: 'pdf',
  docx: 'docx',
  md: 'md',
  markdown: 'md',
  txt: 'txt',
  text: 'txt',
};

function fileError(message: string): ApiError {
  return new ApiError('invalid_parameter', message, { param: 'file' });
}

export function detectFormat(filename: string, content: Buffer): KnowledgeFormat {
  const extension = filename.toLowerCase().split('.').pop() ?? '';
  const claimed = EXTENSIONS[extension];
  if (!claimed) {
    throw fileError(
      `'${filename}' is not a supported knowledge file. Upload a PDF, DOCX, Markdown (.md) or text (.txt) file.`,
    );
  }
  if (content.length === 0) throw fileError(`'${filename}' is empty.`);
  const actual = sniff(content);
  const compatible = actual === claimed || (actual === 'txt' && claimed === 'md');
  if (!compatible) {
    throw fileError(
      `'${filename}' claims to be ${claimed.toUpperCase()} but its content is ${actual ? actual.toUpperCase() : 'not a supported format'}.`,
    );
  }
  return claimed;
}

function sniff(content: Buffer): KnowledgeFormat | undefined {
  if (content.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (content[0] === 0x50 && content[1] === 0x4b && content[2] === 0x03 && content[3] === 0x04) {
    return content.includes('word/document.xml') ? 'docx' : undefined;
  }
  if (content.includes(0)) return undefined;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(content);
    return 'txt';
  } catch {
    return undefined;
  }
}

export async function extractText(
  format: KnowledgeFormat,
  content: Buffer,
  filename: string,
): Promise<string> {
  try {
    switch (format) {
      case 'pdf':
        return await pdfText(content);
      case 'docx': {
        checkInflatedSize(content, filename);
        const mammoth = await import('mammoth');
        return (await mammoth.extractRawText({ buffer: content })).value;
      }
      case 'md':
      case 'txt':
        return content.toString('utf8');
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw fileError(
      `'${filename}' could not be read as ${format.toUpperCase()}: the file looks damaged.`,
    );
  }
}

/**
 * Refuses a DOCX whose entries declare more than MAX_DOCX_UNCOMPRESSED_BYTES once inflated (a
 * zip bomb), from the ZIP central directory, before anything is inflated. An entry lying about
 * its size is still stopped by the worker's heap limit and time budget.
 */
function checkInflatedSize(content: Buffer, filename: string): void {
  const total = declaredUncompressedBytes(content);
  // A broken directory is left to the reader, which refuses it as damaged.
  if (total !== undefined && total > MAX_DOCX_UNCOMPRESSED_BYTES) {
    throw new ApiError(
      'payload_too_large',
      `'${filename}' inflates to ${total} bytes, over the ${MAX_DOCX_UNCOMPRESSED_BYTES} a document may. Split it into smaller documents.`,
      { param: 'file' },
    );
  }
}

/** The sum of the uncompressed sizes in a ZIP's central directory (Infinity for ZIP64, undefined when broken). */
function declaredUncompressedBytes(zip: Buffer): number | undefined {
  const minEnd = Math.max(0, zip.length - 22 - 0xffff);
  let end = -1;
  for (let at = zip.length - 22; at >= minEnd; at--) {
    if (zip.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) return undefined;
  const entries = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  let total = 0;
  for (let index = 0; index < entries; index++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) return undefined;
    const size = zip.readUInt32LE(at + 24);
    if (size === 0xffffffff) return Infinity;
    total += size;
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return total;
}

async function pdfText(content: Buffer): Promise<string> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const document = await getDocument({
    data: new Uint8Array(content),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
  try {
    const pages: string[] = [];
    for (let number = 1; number <= document.numPages; number++) {
      const page = await document.getPage(number);
      const text = await page.getTextContent();
      pages.push(
        text.items
          .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : ' ') : ''))
          .join('')
          .trim(),
      );
    }
    return pages.join('\n\n');
  } finally {
    await document.destroy();
  }
}
