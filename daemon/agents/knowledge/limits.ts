// Bounds on the work one knowledge document may cause: its size, the text extracted from it,
// the passages stored for it, and the time and memory extraction may take.

/** Largest upload accepted (413 past it). */
export const MAX_KNOWLEDGE_BYTES = 10 * 1024 * 1024;

/** Characters of extracted text kept at most: a document that extracts to more is refused. */
export const MAX_EXTRACTED_CHARS = 5 * 1024 * 1024;

/** Passages stored per document at most: a document that splits into more is refused. */
export const MAX_PASSAGES = 20_000;

/** Uncompressed bytes a DOCX may declare for its entries (a zip bomb is refused before inflating). */
export const MAX_DOCX_UNCOMPRESSED_BYTES = 64 * 1024 * 1024;

/** Heap of an extraction worker: a document that needs more is refused, the daemon is unaffected. */
export const WORKER_HEAP_MB = 512;

/** Default time budget of one extraction (SVC_KNOWLEDGE_EXTRACT_SECONDS overrides it). */
export const DEFAULT_EXTRACT_SECONDS = 20;

/** Extractions running at once (each in its own worker); more wait their turn. */
export const MAX_CONCURRENT_EXTRACTIONS = 2;
