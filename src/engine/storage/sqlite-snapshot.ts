// A SQLite store's snapshot views, read in a worker thread (sqlite-snapshot-worker.ts) that hands
// over chunks of entry records: the archive streams them on as they are (`chunks`), and the
// generic entry iterator decodes them. At most IN_FLIGHT chunks are asked for ahead of the
// consumer, so memory stays flat whatever the store's size. close() (or the end) releases the
// worker's read transaction. The thread is kept for the next view (one idle thread per store;
// views that overlap get a thread of their own, which exits after its view).

import { Worker } from 'node:worker_threads';
import { knownCrc32 } from './chunk-hints';
import { readRecords } from './entry-record';
import type { StorageEntry, StorageSnapshot } from './storage';
import type { ParentMessage, WorkerMessage } from './sqlite-snapshot-worker';
import { YoungGarbage } from './young-garbage';

/** Chunks (of about 1 MiB) requested ahead of the consumer. */
const IN_FLIGHT = 3;
/**
 * Every chunk is new memory, garbage once its consumer is done with it: collected as it goes
 * (young-garbage.ts), counted across the store's views.
 */
const handedOut = new YoungGarbage();

function workerFile(): { file: string; execArgv?: string[] } {
  // From source (tsx, Jest) the worker is TypeScript too: it loads through tsx's require hook.
  if (__filename.endsWith('.ts')) {
    return { file: __filename.replace(/sqlite-snapshot\.ts$/, 'sqlite-snapshot-worker.ts'), execArgv: ['--require', require.resolve('tsx/cjs')] };
  }
  return { file: __filename.replace(/sqlite-snapshot\.js$/, 'sqlite-snapshot-worker.js') };
}

/** One reader thread; serves one view at a time. */
class ReaderThread {
  private readonly worker: Worker;
  private onMessage?: (m: WorkerMessage) => void;
  private onGone?: (e: Error) => void;
  /** Set once the thread failed or exited: it serves no further view. */
  gone?: Error;
  /** Settles when the thread has ended (after closing its connection, when told to exit). */
  readonly ended: Promise<void>;

  constructor(dbFile: string, pageBytes?: number) {
    const { file, execArgv } = workerFile();
    this.worker = new Worker(file, { workerData: { file: dbFile, pageBytes }, execArgv });
    this.worker.unref();
    this.worker.on('message', (m: WorkerMessage) => this.onMessage?.(m));
    this.worker.once('error', (e) => this.lost(e));
    this.ended = new Promise((resolve) =>
      this.worker.once('exit', (code) => {
        this.lost(new Error(`the snapshot reader stopped (exit code ${code})`));
        resolve();
      }),
    );
  }

  private lost(e: Error): void {
    this.gone ??= e;
    this.onGone?.(this.gone);
  }

  /** Routes the thread's messages and failure to one view; an active view keeps the process alive. */
  attach(onMessage: (m: WorkerMessage) => void, onGone: (e: Error) => void): void {
    this.onMessage = onMessage;
    this.onGone = onGone;
    this.worker.ref();
  }

  detach(): void {
    this.onMessage = undefined;
    this.onGone = undefined;
    this.worker.unref();
  }

  send(m: ParentMessage): void {
    if (!this.gone) this.worker.postMessage(m);
  }

  /**
   * Ends the thread even while it serves a view (the store is closing): the view fails with
   * `reason`, the thread closes its connection, and `ended` settles then.
   */
  stop(reason: Error): Promise<void> {
    if (!this.gone) this.worker.postMessage({ type: 'exit' } satisfies ParentMessage);
    this.lost(reason);
    this.detach();
    this.worker.ref();
    return this.ended;
  }

  /** The thread closes its connection and ends; `ended` settles then. */
  exit(): Promise<void> {
    this.detach();
    if (this.gone) return Promise.resolve();
    this.send({ type: 'exit' });
    // Kept alive until it has closed its statements and database: a thread torn down at process
    // exit with its connection open leaves SQLite's destructors to run without an environment.
    this.worker.ref();
    return this.ended;
  }
}

let nextView = 1;

/** The snapshot views of one SQLite file, with the reader thread kept between them. */
export class SqliteSnapshotReaders {
  private idle?: ReaderThread;
  private closed = false;
  /** Every thread not yet ended: close() ends them all, a view in progress included. */
  private readonly live = new Set<ReaderThread>();

  /** `pageBytes`: the bound of one chunk (default PAGE_BYTES); tests make it small. */
  constructor(
    private readonly dbFile: string,
    private readonly pageBytes?: number,
  ) {}

  async open(): Promise<StorageSnapshot> {
    // A thread started after close() would open the file again (and create it, were it gone).
    if (this.closed) throw new Error('the store is closed');
    const reader = this.idle && !this.idle.gone ? this.idle : this.startThread();
    this.idle = undefined;
    return openView(reader, (healthy) => {
      if (healthy && !this.closed && !this.idle) this.idle = reader;
      else void reader.exit();
    });
  }

  private startThread(): ReaderThread {
    const thread = new ReaderThread(this.dbFile, this.pageBytes);
    this.live.add(thread);
    void thread.ended.then(() => this.live.delete(thread));
    return thread;
  }

  /**
   * Ends every thread, failing a view still in progress (its consumer sees the error), and waits
   * until each has closed its connection: once it resolves nothing of this store touches the file.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.idle = undefined;
    const reason = new Error('the snapshot was cancelled: the store is closing');
    await Promise.all([...this.live].map((t) => t.stop(reason)));
  }
}

async function openView(reader: ReaderThread, done: (healthy: boolean) => void): Promise<StorageSnapshot> {
  const view = nextView++;
  const ready: Buffer[] = [];
  let asked = 0;
  let ended = false;
  let closed = false;
  let failure: Error | undefined;
  let announced = 0;
  let sha256: string | undefined;
  /** Every chunk was handed out. */
  let drained = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const send = (m: ParentMessage) => reader.send(m);
  let released = false;
  /** Hands the thread back once this view is over (ended, closed or failed). */
  const release = () => {
    if (released) return;
    released = true;
    reader.detach();
    done(!failure && !reader.gone);
  };

  // Resolves once the sizes and the first chunk are in: a small store is then wholly read before
  // the archive starts flowing, and a large one has its first chunks under way.
  const totals = await new Promise<{ count: number; bytes: number }>((resolve, reject) => {
    let sizes: { count: number; bytes: number } | undefined;
    reader.attach(
      (m) => {
        if (m.view !== view) return; // a late message of an earlier view on this thread
        if (m.type === 'totals') {
          sizes = { count: m.count, bytes: m.bytes };
          announced = m.count;
          while (asked < IN_FLIGHT) {
            asked++;
            send({ type: 'more', view });
          }
        } else if (m.type === 'chunk') {
          asked--;
          if (m.length > 0) {
            const c = Buffer.from(m.data, 0, m.length);
            knownCrc32.set(c, m.crc);
            ready.push(c);
          }
          if (m.count !== undefined) {
            ended = true;
            sha256 = m.sha256;
            if (m.count !== announced) failure ??= new Error(`the snapshot read ${m.count} entries, its view announced ${announced}`);
          }
          if (sizes) resolve(sizes);
        } else {
          failure ??= new Error(m.message);
          reject(failure);
          release();
        }
        notify();
      },
      (e) => {
        if (!ended && !closed) failure ??= e;
        reject(failure ?? e);
        release();
        notify();
      },
    );
    send({ type: 'open', view });
  }).catch((e: unknown) => {
    release();
    throw e;
  });

  const close = () => {
    if (closed) return;
    closed = true;
    ready.length = 0;
    // The thread ends the read transaction before it serves anything sent after this.
    if (!ended) send({ type: 'stop', view });
    release();
    notify();
  };

  /** The next chunk of records, or undefined at the end; keeps IN_FLIGHT chunks asked for. */
  const nextChunk = async (): Promise<Buffer | undefined> => {
    for (;;) {
      if (failure) throw failure;
      if (closed) return undefined;
      while (!ended && asked + ready.length < IN_FLIGHT) {
        asked++;
        send({ type: 'more', view });
      }
      const c = ready.shift();
      if (c) {
        // Asked for the next chunk: the consumer is done with the earlier ones.
        handedOut.note(c.length);
        return c;
      }
      if (ended) {
        drained = true;
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
  // Known only once every chunk was handed out: a view closed early has no state.bin to vouch for.
  const stateSha256 = () => (drained && !failure ? sha256 : undefined);
  return { count: totals.count, bytes: totals.bytes, close, chunks, stateSha256, [Symbol.asyncIterator]: entries };
}
