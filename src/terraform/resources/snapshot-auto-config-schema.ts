// keyward_snapshot_auto_config's schema as plain data (see role-attributes.ts for why it is apart).

import { SNAPSHOT_FIELDS } from '../../schema/snapshot-fields';
import type { AttributeSchema, BlockSchema } from '../plugin/contract';
import { secretAttributes } from './secret-attributes';
import type { Kind } from './values';

const PLAIN = SNAPSHOT_FIELDS.filter((f) => !f.secret);
export const SNAPSHOT_SECRETS = SNAPSHOT_FIELDS.filter((f) => f.secret).map((f) => f.name);
export const SNAPSHOT_PLAIN_NAMES = PLAIN.map((f) => f.name);
export const SNAPSHOT_KIND = Object.fromEntries(PLAIN.map((f) => [f.name, f.kind === 'int' ? 'number' : f.kind])) as Record<string, Kind>;
const REQUIRED = new Set(['storage_type', 'interval', 'path_prefix']);

function attr(name: string): AttributeSchema {
  const kind = SNAPSHOT_KIND[name];
  return { type: { kind: kind === 'duration' ? 'string' : kind === 'number' ? 'number' : kind === 'bool' ? 'bool' : 'string' }, ...(REQUIRED.has(name) ? { required: true } : { optional: true, computed: true }) } as AttributeSchema;
}

export const snapshotAutoConfigSchema: BlockSchema = {
  version: 0,
  description: 'An automated snapshot configuration.',
  attributes: {
    name: { type: { kind: 'string' }, required: true, description: 'A change replaces the resource.' },
    ...Object.fromEntries(SNAPSHOT_PLAIN_NAMES.map((n) => [n, attr(n)])),
    ...Object.fromEntries(SNAPSHOT_SECRETS.flatMap((s) => Object.entries(secretAttributes(s, s)))),
    retain_on_destroy: { type: { kind: 'bool' }, optional: true },
  },
};
