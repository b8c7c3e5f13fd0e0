// Token rows are stored under keyed hashes of their accessors (issue 32): neither a token id nor an
// accessor appears in a storage key (and so in a snapshot's key list), lookups by id and accessor
// and revocation of a tree still work, and a store in the older layout (rows under plain
// accessors) is moved at start without losing a token.

import { ManualClock } from '../../../../src/engine/clock';
import { JsonStore } from '../../../../src/engine/storage/json-store';
import { MemoryStorage } from '../../../../src/engine/storage/memory';
import { TokenStore } from '../../../../src/engine/token/token-store';

const seal = { encrypt: (b: Buffer) => b, decrypt: (b: Buffer) => b };
const KEY = Buffer.alloc(32, 9);

function setup() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = new JsonStore(new MemoryStorage());
  return { clock, store, tokens: new TokenStore(store, seal, clock, KEY) };
}

const base = { type: 'service' as const, policies: ['default'], path: 'auth/token/create', displayName: 'token-ci-runner', namespaceId: 'root', ttl: 3600 };

it('no storage key holds a token id, an accessor or a display name; lookups and tree revocation work', async () => {
  const { store, tokens } = setup();
  await tokens.migrateStorageLayout();
  const parent = await tokens.create({ ...base, orphan: true });
  const child = await tokens.create({ ...base, orphan: false, parentAccessor: parent.accessor });
  const keys = await store.list();
  for (const k of keys) {
    for (const secret of [parent.id, child.id, parent.accessor, child.accessor, 'ci-runner']) expect(k).not.toContain(secret);
  }
  expect(keys.filter((k) => k.startsWith('id/'))).toHaveLength(2);
  expect(keys.filter((k) => k.startsWith('parent/'))).toHaveLength(1);
  expect((await tokens.lookup(child.id))?.accessor).toBe(child.accessor);
  expect((await tokens.lookupAccessor(parent.accessor))?.displayName).toBe('token-ci-runner');
  expect(await tokens.listAccessors('root')).toEqual([parent.accessor, child.accessor].sort());
  expect(await tokens.revokeByAccessor(parent.accessor)).toBe(true);
  expect(await tokens.lookup(child.id)).toBeUndefined();
  expect((await store.list()).filter((k) => k.startsWith('id/') || k.startsWith('parent/'))).toEqual([]);
});

it('revoke-orphan keeps the children, now orphans', async () => {
  const { tokens } = setup();
  const parent = await tokens.create({ ...base, orphan: true });
  const child = await tokens.create({ ...base, orphan: false, parentAccessor: parent.accessor });
  await tokens.revokeOrphan((await tokens.lookup(parent.id))!);
  expect(await tokens.lookup(parent.id)).toBeUndefined();
  expect((await tokens.lookup(child.id))?.orphan).toBe(true);
});

it('a store in the older layout (rows under plain accessors) is moved at start, every token kept', async () => {
  const { clock, store, tokens } = setup();
  const parent = await tokens.create({ ...base, orphan: true });
  const child = await tokens.create({ ...base, orphan: false, parentAccessor: parent.accessor });
  const other = await tokens.create({ ...base, orphan: true, id: 'root-dev-token' });
  // Rewrite into the older layout: id/<accessor>, parent/<accessor>/<accessor>, no marker.
  for (const k of await store.list()) {
    const v = await store.get<{ accessor?: string }>(k);
    await store.delete(k);
    if (k.startsWith('id/')) await store.put(`id/${v!.accessor}`, v);
  }
  await store.put(`parent/${parent.accessor}/${child.accessor}`, 1);
  expect(await store.list('id/')).toEqual([parent.accessor, child.accessor, other.accessor].sort());

  const reopened = new TokenStore(store, seal, clock, KEY);
  expect(await reopened.migrateStorageLayout()).toBe(3);
  expect(await reopened.migrateStorageLayout()).toBe(0);
  for (const k of await store.list()) for (const a of [parent.accessor, child.accessor, other.accessor]) expect(k).not.toContain(a);
  expect((await reopened.lookup(other.id))?.accessor).toBe(other.accessor);
  expect((await reopened.lookup(child.id))?.accessor).toBe(child.accessor);
  // The parent index moved too: revoking the parent still takes the child.
  await reopened.revoke((await reopened.lookup(parent.id))!);
  expect(await reopened.lookup(child.id)).toBeUndefined();
});
