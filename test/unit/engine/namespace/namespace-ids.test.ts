// Namespace ids: OpenBao's strength (6 base62 characters), distinct across thousands of namespaces,
// and a store where two namespaces share an id refused at load (issue 32).

import { Namespaces, ROOT_NAMESPACE, DuplicateNamespaceIdError } from '../../../../src/engine/namespace/namespaces';
import { MemoryStorage } from '../../../../src/engine/storage/memory';
import { JsonStore } from '../../../../src/engine/storage/json-store';

it('thousands of namespaces all get distinct 6-character base62 ids, and a reload keeps them', async () => {
  const root = new JsonStore(new MemoryStorage());
  const ns = new Namespaces(root);
  await ns.load();
  const tenant = await ns.create(ROOT_NAMESPACE, 'tenant', {});
  // Concurrent creates, as a namespace admin in a loop would send them (5 hex digits collided at about 1,200).
  const created = await Promise.all(Array.from({ length: 5000 }, (_, i) => ns.create(tenant, `c${i}`, {})));
  const ids = new Set([tenant.id, ...created.map((r) => r.id)]);
  expect(ids.size).toBe(5001);
  for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{6}$/);
  // Every id is in the uniqueness index, pointing at its namespace.
  expect(await root.get(`sys/namespace-ids/${created[42].id}`)).toBe('tenant/c42/');
  const again = new Namespaces(root);
  await again.load();
  expect(again.byId(created[4999].id)?.path).toBe('tenant/c4999/');
});

it('concurrent creates of one path return one namespace', async () => {
  const ns = new Namespaces(new JsonStore(new MemoryStorage()));
  await ns.load();
  const [a, b] = await Promise.all([ns.create(ROOT_NAMESPACE, 'same', {}), ns.create(ROOT_NAMESPACE, 'same', {})]);
  expect(a.id).toBe(b.id);
});

it('a store with two namespaces sharing an id is refused at load', async () => {
  const root = new JsonStore(new MemoryStorage());
  await root.put('sys/namespaces/a/', { id: 'abc123', path: 'a/', custom_metadata: {} });
  await root.put('sys/namespaces/b/', { id: 'abc123', path: 'b/', custom_metadata: {} });
  const ns = new Namespaces(root);
  await expect(ns.load()).rejects.toThrow(DuplicateNamespaceIdError);
  await expect(ns.load()).rejects.toThrow(/"a\/" and "b\/" share the id "abc123".*refusing to start/);
});

it('a child namespace claiming the root id is refused at load', async () => {
  const root = new JsonStore(new MemoryStorage());
  await root.put('sys/namespaces/a/', { id: 'root', path: 'a/', custom_metadata: {} });
  await expect(new Namespaces(root).load()).rejects.toThrow(DuplicateNamespaceIdError);
});

it('a store from before the index gets it at load; a deleted namespace leaves no index entry', async () => {
  const root = new JsonStore(new MemoryStorage());
  await root.put('sys/namespaces/old/', { id: 'f00ba', path: 'old/', custom_metadata: {} });
  const ns = new Namespaces(root);
  await ns.load();
  expect(await root.get('sys/namespace-ids/f00ba')).toBe('old/');
  await ns.delete(ns.record('old')!);
  expect(await root.list('sys/namespace-ids/')).toEqual([]);
});

it.each(['.', '..', '...', 'a/..'])('a namespace named %j is refused', async (name) => {
  const ns = new Namespaces(new JsonStore(new MemoryStorage()));
  await ns.load();
  if (name === 'a/..') await ns.create(ROOT_NAMESPACE, 'a', {});
  await expect(ns.create(ROOT_NAMESPACE, name, {})).rejects.toMatchObject({ status: 400 });
});
