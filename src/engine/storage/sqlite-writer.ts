// The SQLite writer thread. Commits (each with an fsync) run here so the event loop keeps
// accepting requests meanwhile; everything that arrives during one commit shares the next one
// (group commit). The source is plain JavaScript run with `eval`, so the worker needs no
// TypeScript loader in development and no separate build output.

export const WRITER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
const put = db.prepare('INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v');
const del = db.prepare('DELETE FROM kv WHERE k = ?');
const delRange = db.prepare('DELETE FROM kv WHERE k >= ? AND k < ?');
const delAll = db.prepare('DELETE FROM kv');
const asBuffer = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
function apply(ops) {
  for (const op of ops) {
    if (op.t === 'p') put.run(op.k, asBuffer(op.v));
    else if (op.t === 'd') del.run(op.k);
    else if (op.e === '') delAll.run();
    else delRange.run(op.k, op.e);
  }
}
let queue = [];
let scheduled = false;
function commit() {
  scheduled = false;
  const batch = queue;
  queue = [];
  try {
    db.transaction(() => { for (const m of batch) for (const g of m.groups) apply(g); })();
    for (const m of batch) parentPort.postMessage({ seq: m.seq, errors: null });
  } catch (first) {
    // One bad group must not fail its neighbours: retry each in its own commit.
    for (const m of batch) {
      const errors = m.groups.map((g) => {
        try { db.transaction(() => apply(g))(); return null; } catch (e) { return String(e && e.message || e); }
      });
      parentPort.postMessage({ seq: m.seq, errors });
    }
  }
}
parentPort.on('message', (m) => {
  if (m.type === 'close') { db.close(); parentPort.postMessage({ closed: true }); return; }
  queue.push(m);
  if (!scheduled) { scheduled = true; setImmediate(commit); }
});
`;

/** One write op as sent to the writer: put, delete, or range delete [k, e) ("" e = everything). */
export type WireOp = { t: 'p'; k: string; v: Uint8Array } | { t: 'd'; k: string } | { t: 'r'; k: string; e: string };
