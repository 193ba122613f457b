// Test fixtures built in memory: a real PDF 1.4 (Helvetica text lines, a correct xref table)
// and a real DOCX (a ZIP with [Content_Types].xml, _rels/.rels and word/document.xml), so that
// knowledge uploads exercise the real extractors with no binary files in the repository.
import { crc32, deflateRawSync } from 'node:zlib';

/** Escapes a string for a PDF literal string `( ... )`. ASCII only (WinAnsi Helvetica). */
function pdfString(text: string): string {
  if (/[^\x20-\x7e]/.test(text)) throw new Error(`buildPdf takes printable ASCII only: ${text}`);
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

/**
 * A one-page PDF 1.4 whose page shows `lines` (one line by default) in Helvetica 12 pt, one
 * under the other. Object offsets in the xref table are exact byte offsets.
 */
export function buildPdf(lines: string | string[]): Buffer {
  const all = Array.isArray(lines) ? lines : [lines];
  const content = [
    'BT',
    '/F1 12 Tf',
    '14 TL',
    '72 720 Td',
    ...all.map((line, index) => `${index === 0 ? '' : 'T* '}${pdfString(line)} Tj`),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(pdf, 'latin1'));
    pdf += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(pdf, 'latin1');
  // Each xref entry is exactly 20 bytes: 10-digit offset, space, 5-digit generation, space,
  // n|f, space, newline.
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

export interface ZipEntry {
  name: string;
  content: string | Buffer;
}

/**
 * A ZIP archive (local headers, central directory, end record). Entries are deflated
 * (method 8) unless `store` is set (method 0).
 */
export function buildZip(entries: ZipEntry[], options: { store?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  // 2024-01-01 00:00:00 in MS-DOS form.
  const dosTime = 0;
  const dosDate = ((2024 - 1980) << 9) | (1 << 5) | 1;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = Buffer.isBuffer(entry.content)
      ? entry.content
      : Buffer.from(entry.content, 'utf8');
    const method = options.store ? 0 : 8;
    const packed = options.store ? data : deflateRawSync(data);
    const crc = crc32(data);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    const fields = { method, dosTime, dosDate, crc, packed: packed.length, size: data.length };
    writeEntryFields(local, 4, { ...fields, name: name.length });
    locals.push(local, name, packed);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    writeEntryFields(central, 6, { ...fields, name: name.length });
    central.writeUInt16LE(0, 32); // comment
    central.writeUInt16LE(0, 34); // disk number start
    central.writeUInt16LE(0, 36); // internal attributes
    central.writeUInt32LE(0, 38); // external attributes
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0, 4);
  end.writeUInt16LE(0, 6);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(0, 20);
  return Buffer.concat([...locals, directory, end]);
}

function xmlText(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!,
  );
}

/** A minimal Word document: one paragraph (w:p) per string. */
export function buildDocx(
  paragraphs: string | string[],
  options: { store?: boolean } = {},
): Buffer {
  const all = Array.isArray(paragraphs) ? paragraphs : [paragraphs];
  const body = all
    .map((text) => `<w:p><w:r><w:t xml:space="preserve">${xmlText(text)}</w:t></w:r></w:p>`)
    .join('');
  return buildZip(
    [
      {
        name: '[Content_Types].xml',
        content:
          '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
          '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
          '<Default Extension="xml" ContentType="application/xml"/>' +
          '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
          '</Types>',
      },
      {
        name: '_rels/.rels',
        content:
          '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
          '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
          '</Relationships>',
      },
      {
        name: 'word/document.xml',
        content:
          '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
          '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
          `<w:body>${body}<w:sectPr/></w:body></w:document>`,
      },
    ],
    options,
  );
}

/**
 * The run of fields the local header and the central directory entry share (version needed to
 * extract through extra field length), written from `at` (4 in a local header, 6 in an entry).
 */
function writeEntryFields(
  header: Buffer,
  at: number,
  entry: {
    method: number;
    dosTime: number;
    dosDate: number;
    crc: number;
    packed: number;
    size: number;
    name: number;
  },
): void {
  header.writeUInt16LE(20, at); // version needed
  header.writeUInt16LE(0x0800, at + 2); // flags: UTF-8 names
  header.writeUInt16LE(entry.method, at + 4);
  header.writeUInt16LE(entry.dosTime, at + 6);
  header.writeUInt16LE(entry.dosDate, at + 8);
  header.writeUInt32LE(entry.crc, at + 10);
  header.writeUInt32LE(entry.packed, at + 14);
  header.writeUInt32LE(entry.size, at + 18);
  header.writeUInt16LE(entry.name, at + 22);
  header.writeUInt16LE(0, at + 24); // extra length
}
