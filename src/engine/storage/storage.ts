// The physical storage contract: bytes under string keys. Every backend (SQLite here; etcd or a
// Raft-replicated store later) implements this and passes test/unit/engine/storage/conformance.

export type StorageOp = { type: 'put'; key: string; value: Buffer } | { type: 'delete'; key: string };

export interface StorageEntry {
  key: string;
  value: Buffer;
}

/** A consistent, point-in-time view of the whole store, read lazily in key order. */
export interface StorageSnapshot extends AsyncIterable<StorageEntry> {
  /** Number of entries in the view. */
  readonly count: number;
  /** UTF-8 bytes of every key plus bytes of every value in the view (sizes an archive up front). */
  readonly bytes: number;
  /** Releases the view; iteration ends. Safe to call twice. */
  close(): void;
  /**
   * The same entries, already in entry-record.ts's layout (whole records per chunk), where the
   * store can produce them off the event loop (SQLite). Use this or the iterator, not both.
   * Each chunk is the consumer's alone: the view keeps no reference to a chunk it handed out.
   */
  chunks?(): AsyncIterable<Buffer>;
  /**
   * With chunks(): the SHA-256 (hex) of the state.bin they make (STATE_MAGIC, the chunks, the end
   * marker), computed where they were made; known once chunks() has ended, undefined before.
   */
  stateSha256?(): string | undefined;
}

export interface Storage {
  get(key: string): Promise<Buffer | undefined>;
  /** Resolves once the write is durable. */
  put(key: string, value: Buffer): Promise<void>;
  delete(key: string): Promise<void>;
  /** Every key that starts with prefix, sorted, returned whole (not relative to prefix). */
  list(prefix: string): Promise<string[]>;
  /** Applies all ops atomically and durably. */
  batch(ops: StorageOp[]): Promise<void>;
  /** Deletes every key under prefix atomically. */
  deletePrefix(prefix: string): Promise<void>;
  /** Opens a consistent point-in-time iterator over every entry. */
  snapshot(): Promise<StorageSnapshot>;
  /** Atomically replaces the whole store with the given entries (restore). */
  replaceAll(entries: AsyncIterable<StorageEntry>): Promise<void>;
  close(): Promise<void>;
}
