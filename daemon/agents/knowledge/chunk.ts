// Splits extracted text into passages for retrieval: paragraphs, long ones cut at sentence
// ends near the size limit, short neighbours kept apart (a passage is quoted verbatim). A
// heading is not a passage of its own: it is attached to the paragraphs under it, so that a
// question naming the heading's words finds the paragraph that answers it (the heading is
// searched with the text; the answer quotes the text).

const MAX_CHARS = 600;

/** A passage of a document: its text, and the heading it stands under (null when none). */
export interface Chunk {
  heading: string | null;
  text: string;
}

/** Markdown ATX heading (`## Shipping`): its marks in group 1, its text in group 2. */
const ATX_HEADING = /^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
/** Markdown setext underline (`Shipping` over `========` or `--------`). */
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;
/** A title line of plain text (PDF, DOCX, .txt): short, few words, not a sentence. */
const MAX_TITLE_CHARS = 80;
const MAX_TITLE_WORDS = 10;

export function chunkText(text: string): Chunk[] {
  const blocks = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .flatMap(splitHeadingLines)
    .filter((block) => /[\p{L}\p{N}]/u.test(block.text));
  blocks.forEach((block, index) => {
    const next = blocks[index + 1];
    if (block.level === undefined && next && isTitleLine(block.text, next.text)) {
      block.heading = collapse(block.text);
      block.level = TITLE_LEVEL;
    }
  });
  // A heading with no paragraph anywhere after it heads nothing: kept as the passage it was.
  let bodyAfter = false;
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index]!;
    if (block.level === undefined) bodyAfter = true;
    else if (!bodyAfter) delete block.level;
  }
  const chunks: Chunk[] = [];
  // The headings the next paragraph stands under, outermost first (a section's heading replaces
  // its sibling's and those of deeper levels).
  let path: { level: number; text: string }[] = [];
  for (const block of blocks) {
    if (block.level !== undefined) {
      const level = block.level;
      path = [...path.filter((heading) => heading.level < level), { level, text: block.heading! }];
      continue;
    }
    const heading = path.length > 0 ? path.map((entry) => entry.text).join(' - ') : null;
    for (const piece of splitLong(collapse(block.text))) chunks.push({ heading, text: piece });
  }
  return chunks;
}

/** A block of text; a heading's text and level (1-6 Markdown, 7 a plain-text title line). */
interface Block {
  text: string;
  heading?: string;
  level?: number;
}

const TITLE_LEVEL = 7;

/**
 * A paragraph's Markdown heading lines as blocks of their own (`## Shipping` directly above its
 * text, without a blank line, is still a heading), in order.
 */
function splitHeadingLines(paragraph: string): Block[] {
  const lines = paragraph.split('\n');
  const blocks: Block[] = [];
  let body: string[] = [];
  const flush = () => {
    if (body.length > 0) blocks.push({ text: body.join('\n') });
    body = [];
  };
  lines.forEach((line, index) => {
    const atx = ATX_HEADING.exec(line.trim());
    const underlined =
      index + 1 < lines.length &&
      body.length === 0 &&
      line.trim() !== '' &&
      SETEXT_UNDERLINE.test(lines[index + 1]!.trim());
    if (atx && /[\p{L}\p{N}]/u.test(atx[2]!)) {
      flush();
      blocks.push({ text: line, heading: collapse(atx[2]!), level: atx[1]!.length });
    } else if (underlined) {
      const level = lines[index + 1]!.trim().startsWith('=') ? 1 : 2;
      blocks.push({ text: line, heading: collapse(line), level });
    } else if (!(SETEXT_UNDERLINE.test(line.trim()) && blocks.at(-1)?.level !== undefined)) {
      body.push(line);
    }
  });
  flush();
  return blocks;
}

/**
 * Whether a plain-text paragraph is a title over the next one: a single short line that is not
 * a sentence (no closing . ! ; or ,; a question is a title, as in a FAQ), above a longer text.
 */
function isTitleLine(block: string, next: string): boolean {
  const line = block.trim();
  if (line.includes('\n') || line.length > MAX_TITLE_CHARS) return false;
  if (/[.!;,]$/.test(line)) return false;
  if (line.split(/\s+/).length > MAX_TITLE_WORDS) return false;
  return collapse(next).length > line.length;
}

function collapse(paragraph: string): string {
  return paragraph
    .replace(/[ \t]*\n[ \t]*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function splitLong(paragraph: string): string[] {
  if (paragraph.length <= MAX_CHARS) return [paragraph];
  const sentences = paragraph.match(/[^.!?]+[.!?]+["')\]]*\s*|[^.!?]+$/g) ?? [paragraph];
  const chunks: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (current && current.length + sentence.length > MAX_CHARS) {
      chunks.push(current.trim());
      current = '';
    }
    if (sentence.length > MAX_CHARS) {
      for (let start = 0; start < sentence.length; start += MAX_CHARS)
        chunks.push(sentence.slice(start, start + MAX_CHARS).trim());
      continue;
    }
    current += sentence;
  }
  if (current.trim()) chunks.push(current.trim());
  return chunks;
}
const STOPWORDS = new Set(
  'the and for are but not you your with this that have from they will would there their what about which when make can like time just him know take into year some could them see other than then now look only come its over think also back after use two how our work first well way even new want because any these give day most us was were been has had did does is am of to in on at by or an as be it do if so no we my me he she'.split(
    ' ',
  ),
);

/** Lowercase search terms of an input: words of 3+ letters or digits, no stopwords, at most 16. */
export function searchTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  return [...new Set(words.filter((word) => !STOPWORDS.has(word)))].slice(0, 16);
}
