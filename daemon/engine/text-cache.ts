// A least-recently-used cache keyed by text, bounded by its number of entries and by the
// characters of its keys. What is cached by text here (compiled expressions, a config string's
// parts) grows with the text: a compiled 2,000-character expression holds 70-250 KB. Counting
// characters bounds the memory whatever the texts' sizes, where a bound on entries alone let 5,000
// compiled expressions hold over 1 GB. Least recently used, so a hot workflow's expressions stay
// while a stream of new ones (every PATCH of a large workflow) passes through.
// (A Map keeps insertion order: a hit moves its entry to the end, eviction takes the first.)
export class TextCache<V> {
  private readonly entries = new Map<string, V>();
  private chars = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** Caches `value`; a key longer than the whole bound is not kept. */
  set(key: string, value: V): void {
    if (this.entries.delete(key)) this.chars -= key.length;
    if (key.length > this.maxChars) return;
    this.entries.set(key, value);
    this.chars += key.length;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= oldest.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
