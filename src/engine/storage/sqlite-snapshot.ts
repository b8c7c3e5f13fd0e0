// A SQLite store's snapshot view, read in a worker thread (sqlite-snapshot-worker.ts) that hands
// over chunks of entry records: the archive streams them on as they are (`chunks`), and the
// generic entry iterator decodes them. At most IN_FLIGHT chunks are asked for ahead of the
// consumer, so memory stays flat whatever the store's size. close() (or the end) releases the
// worker's read transaction and ends the thread.

import { Worker } from 'node:worker_threads';
import { readRecords } from './entry-record';
import type { StorageEntry, StorageSnapshot } from './storage';
import type { ParentMessage, WorkerMessage } from './sqlite-snapshot-worker';

/** Chunks (of about 1 MiB) requested ahead of the consumer. */
const IN_FLIGHT = 3;

function workerFile(): { file: string; execArgv?: string[] } {
  // From source (tsx, Jest) the worker is TypeScript too: it loads through tsx's require hook.
  if (__filename.endsWith('.ts')) {
    return { file: __filename.replace(/sqlite-snapshot\.ts$/, 'sqlite-snapshot-worker.ts'), execArgv: ['--require', require.resolve('tsx/cjs')] };
  }
  return { file: __filename.replace(/sqlite-snapshot\.js$/, 'sqlite-snapshot-worker.js') };
}

export async function openSqliteSnapshot(dbFile: string): Promise<StorageSnapshot> {
  const { file, execArgv } = workerFile();
  const worker = new Worker(file, { workerData: { file: dbFile }, execArgv });
  const ready: Buffer[] = [];
  let asked = 0;
  let ended = false;
  let closed = false;
  let failure: Error | undefined;
  let announced = 0;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const send = (m: ParentMessage) => worker.postMessage(m);

  // Resolves once the sizes and the first chunk are in: a small store is then wholly read before
  // the archive starts flowing, and a large one has its first chunks under way.
  const totals = await new Promise<{ count: number; bytes: number }>((resolve, reject) => {
    let sizes: { count: number; bytes: number } | undefined;
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'totals') {
        sizes = m;
        announced = m.count;
        while (asked < IN_FLIGHT) {
          asked++;
          send('more');
        }
      } else if (m.type === 'chunk') {
        asked--;
        if (m.length > 0) ready.push(Buffer.from(m.data, 0, m.length));
        if (m.count !== undefined) {
          ended = true;
          if (m.count !== announced) failure ??= new Error(`the snapshot read ${m.count} entries, its view announced ${announced}`);
        }
        if (sizes) resolve(sizes);
      } else {
        failure ??= new Error(m.message);
        reject(failure);
      }
      notify();
    });
    worker.once('error', (e) => {
      failure ??= e;
      reject(e);
      notify();
    });
    worker.once('exit', (code) => {
      if (!ended && !closed) failure ??= new Error(`the snapshot reader stopped (exit code ${code})`);
      reject(failure ?? new Error('the snapshot reader stopped'));
      notify();
    });
  });

  const close = () => {
    if (closed) return;
    closed = true;
    ready.length = 0;
    if (!ended) send('stop');
    // The worker exits by itself once it has released the view; nothing waits for it.
    worker.unref();
    notify();
  };

  /** The next chunk of records, or undefined at the end; keeps IN_FLIGHT chunks asked for. */
  const nextChunk = async (): Promise<Buffer | undefined> => {
    for (;;) {
      if (failure) throw failure;
      if (closed) return undefined;
      while (!ended && asked + ready.length < IN_FLIGHT) {
        asked++;
        send('more');
      }
      const c = ready.shift();
      if (c) return c;
      if (ended) {
        close();
        return undefined;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };

  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for (let c = await nextChunk(); c; c = await nextChunk()) yield c;
    } finally {
      close();
    }
  }
  async function* entries(): AsyncGenerator<StorageEntry> {
    for await (const c of chunks()) yield* readRecords(c);
  }
  return { count: totals.count, bytes: totals.bytes, close, chunks, [Symbol.asyncIterator]: entries };
}
