// Splits extracted text into passages for retrieval: paragraphs, long ones cut at sentence
// ends near the size limit, short neighbours kept apart (a passage is quoted verbatim).

const MAX_CHARS = 600;

export function chunkText(text: string): string[] {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((paragraph) =>
      paragraph
        .replace(/[ \t]*\n[ \t]*/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((paragraph) => /[\p{L}\p{N}]/u.test(paragraph));
  return paragraphs.flatMap(splitLong);
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
