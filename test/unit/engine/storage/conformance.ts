// The storage conformance suite: every Storage implementation must pass it.

import type { Storage } from '../../../../src/engine/storage/storage';

const b = (s: string) => Buffer.from(s, 'utf8');

export function storageConformance(name: string, open: () => Promise<{ storage: Storage; cleanup?: () => Promise<void> }>): void {
  describe(`${name} conformance`, () => {
    let storage: Storage;
    let cleanup: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ storage, cleanup } = await open());
    });
    afterEach(async () => {
      await storage.close();
      await cleanup?.();
    });

    it('get, put, overwrite, delete', async () => {
      expect(await storage.get('a')).toBeUndefined();
      await storage.put('a', b('1'));
      expect((await storage.get('a'))?.toString()).toBe('1');
      await storage.put('a', b('2'));
      expect((await storage.get('a'))?.toString()).toBe('2');
      await storage.delete('a');
      expect(await storage.get('a')).toBeUndefined();
      await storage.delete('never-there');
    });

    it('lists whole keys by prefix, sorted, without neighbours', async () => {
      for (const k of ['p/b', 'p/a', 'p/c/d', 'pa', 'q']) await storage.put(k, b(k));
      expect(await storage.list('p/')).toEqual(['p/a', 'p/b', 'p/c/d']);
      expect(await storage.list('')).toEqual(['p/a', 'p/b', 'p/c/d', 'pa', 'q']);
      expect(await storage.list('zzz')).toEqual([]);
    });

    it('applies a batch atomically and in order', async () => {
      await storage.put('x', b('old'));
      await storage.batch([
        { type: 'put', key: 'x', value: b('new') },
        { type: 'put', key: 'y', value: b('y') },
        { type: 'delete', key: 'x' },
        { type: 'put', key: 'z', value: b('z') },
      ]);
      expect(await storage.get('x')).toBeUndefined();
      expect(await storage.list('')).toEqual(['y', 'z']);
    });

    it('deletes a prefix', async () => {
      for (const k of ['m/1', 'm/2/3', 'mm', 'n']) await storage.put(k, b(k));
      await storage.deletePrefix('m/');
      expect(await storage.list('')).toEqual(['mm', 'n']);
    });

    it('concurrent writes all land', async () => {
      await Promise.all(Array.from({ length: 200 }, (_, i) => storage.put(`c/${String(i).padStart(3, '0')}`, b(String(i)))));
      expect((await storage.list('c/')).length).toBe(200);
    });

    it('a snapshot is a consistent point-in-time view while writes go on', async () => {
      for (let i = 0; i < 50; i++) await storage.put(`s/${String(i).padStart(2, '0')}`, b('before'));
      const snap = await storage.snapshot();
      expect(snap.count).toBe(50);
      await storage.put('s/99', b('after'));
      await storage.put('s/00', b('changed'));
      const seen: string[] = [];
      for await (const e of snap) {
        seen.push(e.key);
        expect(e.value.toString()).toBe('before');
      }
      expect(seen.length).toBe(50);
      expect(seen).toEqual([...seen].sort());
      snap.close();
    });

    it('a snapshot knows the byte size of its keys (UTF-8) and values up front', async () => {
      await storage.put('z/ä€', b('12345'));
      await storage.put('z/plain', Buffer.alloc(1000));
      const snap = await storage.snapshot();
      let bytes = 0;
      for await (const e of snap) bytes += Buffer.byteLength(e.key, 'utf8') + e.value.length;
      expect(snap.bytes).toBe(bytes);
      expect(bytes).toBe('z/ä€'.length + 3 + 5 + 'z/plain'.length + 1000);
      snap.close();
    });

    it('replaceAll swaps the whole content', async () => {
      await storage.put('old', b('1'));
      async function* entries() {
        yield { key: 'new/1', value: b('a') };
        yield { key: 'new/2', value: b('b') };
      }
      await storage.replaceAll(entries());
      expect(await storage.list('')).toEqual(['new/1', 'new/2']);
      expect((await storage.get('new/2'))?.toString()).toBe('b');
    });

    it('a failing replaceAll leaves the old content', async () => {
      await storage.put('keep', b('1'));
      async function* broken() {
        yield { key: 'partial', value: b('x') };
        throw new Error('archive truncated');
      }
      await expect(storage.replaceAll(broken())).rejects.toThrow('archive truncated');
      expect(await storage.list('')).toEqual(['keep']);
    });
  });
}
