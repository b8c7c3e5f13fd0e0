// Identity: one entity per alias (mount accessor + alias name), with the alias metadata and the
// group aliases of the last login. Written only when something changed, so steady-state logins
// cost no identity write.

import { hash, randomUUID } from 'node:crypto';
import type { JsonStore } from '../storage/json-store';

export interface EntityAlias {
  id: string;
  name: string;
  mount_accessor: string;
  mount_path: string;
  metadata: Record<string, string>;
}

export interface Entity {
  id: string;
  name: string;
  namespace_id: string;
  aliases: EntityAlias[];
  /** Group alias names from the last login (e.g. project-p1), per mount accessor. */
  group_aliases: { name: string; mount_accessor: string }[];
  creation_time: string;
  last_update_time: string;
}

const aliasKey = (accessor: string, name: string) => `alias/${accessor}/${hash('sha256', name, 'hex')}`;

function sameMetadata(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

function sameGroups(a: Entity['group_aliases'], b: Entity['group_aliases']): boolean {
  return a.length === b.length && a.every((g, i) => g.name === b[i].name && g.mount_accessor === b[i].mount_accessor);
}

export class IdentityStore {
  private cache = new Map<string, Entity>();
  /**
   * Mount accessor and alias name (NUL-joined) → entity id; aliases never move between entities, so
   * this needs no invalidation. Keyed by the raw pair, so a known alias costs no hash per login.
   */
  private aliases = new Map<string, string>();

  constructor(private readonly store: JsonStore) {}

  async resolve(input: {
    namespaceId: string;
    mountAccessor: string;
    mountPath: string;
    aliasName: string;
    metadata: Record<string, string>;
    groupAliases: string[];
    now: Date;
  }): Promise<Entity> {
    const known = `${input.mountAccessor}\0${input.aliasName}`;
    let entityId = this.aliases.get(known);
    const key = () => aliasKey(input.mountAccessor, input.aliasName);
    if (!entityId) entityId = (await this.store.get<{ entityId: string }>(key()))?.entityId;
    let entity = entityId ? await this.get(entityId) : undefined;
    if (entity) this.aliases.set(known, entity.id);
    const groupAliases = input.groupAliases.map((name) => ({ name, mount_accessor: input.mountAccessor }));
    if (!entity) {
      const id = randomUUID();
      entity = {
        id,
        name: `entity_${id.slice(0, 8)}`,
        namespace_id: input.namespaceId,
        aliases: [{ id: randomUUID(), name: input.aliasName, mount_accessor: input.mountAccessor, mount_path: input.mountPath, metadata: input.metadata }],
        group_aliases: groupAliases,
        creation_time: input.now.toISOString(),
        last_update_time: input.now.toISOString(),
      };
      await this.store.batch([
        { type: 'put', key: `entity/${id}`, value: entity },
        { type: 'put', key: key(), value: { entityId: id } },
      ]);
      this.cache.set(id, entity);
      this.aliases.set(known, id);
      return entity;
    }
    const alias = entity.aliases.find((a) => a.mount_accessor === input.mountAccessor && a.name === input.aliasName);
    const otherGroups = entity.group_aliases.filter((g) => g.mount_accessor !== input.mountAccessor);
    const nextGroups = [...otherGroups, ...groupAliases];
    if (alias && sameMetadata(alias.metadata, input.metadata) && sameGroups(entity.group_aliases, nextGroups)) return entity;
    const updated: Entity = {
      ...entity,
      aliases: entity.aliases.map((a) => (a === alias ? { ...a, metadata: input.metadata } : a)),
      group_aliases: nextGroups,
      last_update_time: input.now.toISOString(),
    };
    await this.store.put(`entity/${entity.id}`, updated);
    this.cache.set(entity.id, updated);
    return updated;
  }

  async get(id: string): Promise<Entity | undefined> {
    const hit = this.cache.get(id);
    if (hit) return hit;
    const e = await this.store.get<Entity>(`entity/${id}`);
    if (e) this.cache.set(id, e);
    return e;
  }

  /** Drops aliases of a disabled mount. */
  async forgetMount(accessor: string): Promise<void> {
    await this.store.deletePrefix(`alias/${accessor}/`);
    this.cache.clear();
    this.aliases.clear();
  }

  clearCache(): void {
    this.cache.clear();
    this.aliases.clear();
  }
}
