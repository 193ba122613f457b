// Knowledge files: the format is decided by the content (PDF magic, a DOCX zip with
// word/document.xml, UTF-8 text), and must agree with the file name; then the text is
// extracted with pdfjs (PDF) or mammoth (DOCX).
import { ApiError } from '../../domain/errors.js';

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
