// The one thing services may ask of the store directly: make a change atomic. The database
// itself (statements, pragmas) stays behind the repositories; the composition root hands
// services the store's handle typed as this.
export interface Transactions {
  /** Wraps `work` so that calling it runs in one transaction (a nested call joins the outer one). */
  transaction<T>(work: () => T): () => T;
  /** True while a transaction is open: the caller's change will commit (or roll back) this work. */
  readonly inTransaction: boolean;
}
