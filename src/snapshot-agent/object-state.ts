// --state as an object-store prefix, through the engine's own targets (the same SDKs and client
// settings as snapshots use): values are small objects, one per key, with "/" in keys spelled "~"
// (targets list one level; "~" is in no config name); put is the target's publish-when-complete
// upload, createExclusive the store's own conditional write (ExclusiveCreate).

import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ExclusiveCreate, SnapshotTarget } from '../engine/snapshot/targets/target';
import { checkStateKey, type StateStore } from './state-store';

const SEP = '~';
const flat = (key: string) => {
  checkStateKey(key);
  return key.split('/').join(SEP);
};

function notFound(e: unknown): boolean {
  const x = e as { $metadata?: { httpStatusCode?: number }; code?: unknown; statusCode?: number; name?: string };
  return x?.$metadata?.httpStatusCode === 404 || x?.code === 404 || x?.statusCode === 404 || x?.name === 'NoSuchKey';
}

export class ObjectState implements StateStore {
  constructor(
    readonly location: string,
    private readonly target: SnapshotTarget & ExclusiveCreate,
  ) {}

  /**
   * Refuses a store that ignores the condition (s3rver, some S3-compatible servers accept
   * If-None-Match and overwrite anyway): two agents could then both take a slot.
   */
  async open(): Promise<this> {
    const probe = `probe${SEP}${randomUUID()}`;
    const first = await this.target.createIfAbsent(probe, Buffer.from('1'));
    const second = await this.target.createIfAbsent(probe, Buffer.from('2'));
    await this.target.delete(probe).catch(() => undefined);
    if (!first || second) {
      throw new Error(
        `--state ${this.location}: the store does not honour conditional writes (a second create-if-absent of one key succeeded); agents could not coordinate on it. Use a store that does, or a directory`,
      );
    }
    return this;
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const parts: Buffer[] = [];
      for await (const c of (await this.target.get(flat(key))) as AsyncIterable<Buffer>) parts.push(Buffer.from(c));
      return Buffer.concat(parts);
    } catch (e) {
      if (notFound(e)) return undefined;
      throw e;
    }
  }

  async put(key: string, value: Buffer): Promise<void> {
    return this.target.put(flat(key), () => Readable.from([value]), value.length, new AbortController().signal);
  }

  async delete(key: string): Promise<void> {
    try {
      await this.target.delete(flat(key));
    } catch (e) {
      if (!notFound(e)) throw e;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const p = prefix.split('/').join(SEP);
    return (await this.target.list())
      .map((o) => o.name)
      .filter((n) => n.startsWith(p) && !n.startsWith('.') && !n.startsWith(`probe${SEP}`))
      .map((n) => n.split(SEP).join('/'))
      .sort();
  }

  async createExclusive(key: string, value: Buffer): Promise<boolean> {
    return this.target.createIfAbsent(flat(key), value);
  }

  close(): Promise<void> {
    return this.target.close();
  }
}
