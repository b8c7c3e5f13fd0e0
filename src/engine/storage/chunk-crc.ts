// CRC-32s of chunks, computed where the chunk was made (SQLite's snapshot worker), keyed by the
// chunk itself: the chunk passes unchanged through the tar entry into the gzip writer, which takes
// its CRC from here instead of reading 100 MB again on the event loop. A chunk without one (any
// other buffer) is simply read.

export const knownCrc32 = new WeakMap<Buffer, number>();
