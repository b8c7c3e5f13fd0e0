// Chunks whose memory the gzip writer may reuse for its own output once it has copied them: their
// consumer handed them on and keeps no reference (state-codec's passRecords, for the chunks a store
// view made for it alone). Every buffer that reaches the event loop is new memory the garbage
// collector has to account for and sweep: a 100 MB archive made fresh 1 MiB output buffers as
// well as its 1 MiB input chunks, and the collections that churn triggered cost more CPU than
// reading the store (bench/snapshot.ts). Reusing the inputs halves the churn.

export const reusableChunks = new WeakSet<Buffer>();
