// The agent's --state: a few small records under string keys ("config/<name>", "status/<name>",
// "lease/<name>/<slot>-<generation>") in a directory or an object-store prefix. Coordination
// between agents uses only the store's own atomic create-if-absent (O_EXCL/link on a directory,
// conditional writes on object stores): nothing else is a lock.

export interface StateStore {
  /** Human-readable location, for logs. */
  readonly location: string;
  get(key: string): Promise<Buffer | undefined>;
  /** Replaces the value atomically: a reader sees the old or the new value, never a part. */
  put(key: string, value: Buffer): Promise<void>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Keys under `prefix` (whole keys), sorted. */
  list(prefix: string): Promise<string[]>;
  /** Creates `key` with `value` only if it does not exist; false when it already did. */
  createExclusive(key: string, value: Buffer): Promise<boolean>;
  close(): Promise<void>;
}

/** Keys become file names and object names: one safe alphabet, "/" separating levels. */
export function checkStateKey(key: string): void {
  if (!/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(key) || key.split('/').some((p) => p === '.' || p === '..' || p.startsWith('.'))) {
    throw new Error(`invalid state key ${JSON.stringify(key)}`);
  }
}
