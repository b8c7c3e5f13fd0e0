// A small ProviderDefinition for protocol tests: resource "keyward_toy" kept in a JSON file
// (KEYWARD_TOY_STORE; Terraform starts a new provider process per command) with a nested map
// attribute, server-computed attributes and a write-only secret whose length the "server" records.
import * as fs from 'node:fs';
import { DiagnosticsError, UNKNOWN, type ObjectValue, type ProviderDefinition, type ResourceHandler, type Value } from '../../../src/terraform/plugin/contract';

interface StoredItem {
  value: string;
  note: string | null;
  serial: number;
}
interface StoredToy {
  name: string;
  items: Record<string, StoredItem> | null;
  generation: number;
  secret_length: number | null;
  secret_wo_version: number | null;
}
type Store = { toys: Record<string, StoredToy>; serial: number; secrets: Record<string, string> };

export class ToyStore {
  private memory: Store = { toys: {}, serial: 0, secrets: {} };
  constructor(private readonly file?: string) {}
  load(): Store {
    if (!this.file || !fs.existsSync(this.file)) return this.memory;
    return JSON.parse(fs.readFileSync(this.file, 'utf8')) as Store;
  }
  save(store: Store): void {
    if (this.file) fs.writeFileSync(this.file, JSON.stringify(store));
    else this.memory = store;
  }
}

interface ToyConfig {
  store: ToyStore;
  prefix: string;
}

const str = { kind: 'string' } as const;
const num = { kind: 'number' } as const;

function asObject(v: Value | undefined): ObjectValue | null {
  return v !== null && v !== undefined && v !== UNKNOWN && typeof v === 'object' && !Array.isArray(v) ? v : null;
}

function toState(toy: StoredToy): ObjectValue {
  const items = toy.items === null ? null : Object.fromEntries(Object.entries(toy.items).map(([k, i]) => [k, { value: i.value, note: i.note, serial: i.serial }]));
  return { name: toy.name, items, generation: toy.generation, secret_wo: null, secret_wo_version: toy.secret_wo_version, secret_length: toy.secret_length };
}

const toyResource: ResourceHandler<ToyConfig> = {
  typeName: 'keyward_toy',
  schema: {
    version: 1,
    attributes: {
      name: { type: str, required: true, description: 'Identity; a change replaces the toy.' },
      items: {
        optional: true,
        nested: {
          nesting: 'map',
          attributes: {
            value: { type: str, required: true },
            note: { type: str, optional: true },
            serial: { type: num, computed: true },
          },
        },
      },
      generation: { type: num, computed: true },
      secret_wo: { type: str, optional: true, sensitive: true, writeOnly: true },
      secret_wo_version: { type: num, optional: true },
      secret_length: { type: num, computed: true },
    },
  },
  validate(config) {
    const name = config.name;
    if (typeof name === 'string' && !/^[a-z0-9-]+$/.test(name)) {
      return [{ severity: 'error', summary: 'Invalid name', detail: 'name: lowercase letters, digits and dashes only', attribute: ['name'] }];
    }
    return [];
  },
  async read(provider, state) {
    const toy = provider.store.load().toys[String(state.name)];
    return { state: toy ? toState(toy) : null };
  },
  async plan(_provider, req) {
    if (req.proposed === null) return { planned: null };
    const prior = req.prior;
    const proposed = req.proposed;
    const priorItems = asObject(prior?.items) ?? {};
    const items = asObject(proposed.items);
    let changed = prior === null || prior.name !== proposed.name || prior.secret_wo_version !== proposed.secret_wo_version;
    const plannedItems: ObjectValue | null = items === null ? null : {};
    if ((items === null) !== (asObject(prior?.items) === null)) changed = true;
    for (const [key, raw] of Object.entries(items ?? {})) {
      const item = asObject(raw)!;
      const before = asObject(priorItems[key]);
      const same = before !== null && before.value === item.value && before.note === item.note;
      if (!same) changed = true;
      plannedItems![key] = { ...item, serial: same ? before.serial! : UNKNOWN };
    }
    for (const key of Object.keys(priorItems)) if (!(key in (items ?? {}))) changed = true;
    const secretChanged = prior === null || prior.secret_wo_version !== proposed.secret_wo_version;
    return {
      planned: {
        ...proposed,
        items: plannedItems,
        generation: changed ? UNKNOWN : prior!.generation!,
        secret_length: secretChanged ? UNKNOWN : prior!.secret_length!,
      },
      requiresReplace: prior !== null && prior.name !== proposed.name ? [['name']] : [],
    };
  },
  async apply(provider, req) {
    const store = provider.store.load();
    if (req.planned === null) {
      delete store.toys[String(req.prior!.name)];
      provider.store.save(store);
      return { state: null };
    }
    const name = String(req.planned.name);
    if (name.startsWith('fail-')) throw new DiagnosticsError([{ severity: 'error', summary: 'The toy server refused the name', attribute: ['name'] }]);
    const before = store.toys[name];
    const items: Record<string, StoredItem> | null = asObject(req.planned.items) === null ? null : {};
    for (const [key, raw] of Object.entries(asObject(req.planned.items) ?? {})) {
      const item = asObject(raw)!;
      const serial = item.serial === UNKNOWN ? ++store.serial : Number(item.serial);
      items![key] = { value: String(item.value), note: item.note === null ? null : String(item.note), serial };
    }
    const secret = req.config?.secret_wo;
    let secretLength = before?.secret_length ?? null;
    if (req.planned.secret_length === UNKNOWN) {
      secretLength = typeof secret === 'string' ? secret.length : null;
      if (typeof secret === 'string') store.secrets[name] = secret;
    }
    const toy: StoredToy = {
      name,
      items,
      generation: req.planned.generation === UNKNOWN ? (before?.generation ?? 0) + 1 : Number(req.planned.generation),
      secret_length: secretLength,
      secret_wo_version: req.planned.secret_wo_version === null ? null : Number(req.planned.secret_wo_version),
    };
    store.toys[name] = toy;
    provider.store.save(store);
    return { state: toState(toy) };
  },
  async import(provider, id) {
    const toy = provider.store.load().toys[id];
    if (!toy) throw new DiagnosticsError([{ severity: 'error', summary: `No toy named "${id}"` }]);
    return toState(toy);
  },
};

export function toyProvider(storeFile = process.env.KEYWARD_TOY_STORE): ProviderDefinition<ToyConfig> {
  const store = new ToyStore(storeFile);
  return {
    schema: { version: 0, attributes: { prefix: { type: str, optional: true }, token: { type: str, optional: true, sensitive: true } } },
    validate(config) {
      return config.prefix === 'bad' ? [{ severity: 'error', summary: 'prefix must not be "bad"', attribute: ['prefix'] }] : [];
    },
    configure: async (config) => ({ store, prefix: typeof config.prefix === 'string' ? config.prefix : '' }),
    resources: [toyResource],
  };
}
