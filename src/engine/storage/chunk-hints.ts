// The links between storage and snapshots, in one place: what a store's snapshot reader knows about
// the chunks it hands on, kept beside each chunk (weakly, so a chunk's hint goes with it) for the
// snapshot gzip writer (src/engine/snapshot/stored-gzip.ts). A chunk without a hint is simply read.
// bench/snapshot.ts measures both.

/**
 * CRC-32s of chunks, computed where the chunk was made (SQLite's snapshot worker): the chunk passes
 * unchanged through the tar entry into the gzip writer, which takes its CRC from here instead of
 * reading 100 MB again on the event loop.
 */
export const knownCrc32 = new WeakMap<Buffer, number>();

/**
 * Chunks whose memory the gzip writer may reuse for its own output once it has copied them: their
 * consumer handed them on and keeps no reference (state-codec's passRecords, for the chunks a store
 * view made for it alone). Every buffer that reaches the event loop is new memory the garbage
 * collector has to account for and sweep: a 100 MB archive made fresh 1 MiB output buffers as well
 * as its 1 MiB input chunks, and the collections that churn triggered cost more CPU than reading
 * the store. Reusing the inputs halves the churn.
 */
export const reusableChunks = new WeakSet<Buffer>();
