// keyward_snapshot_auto_config's schema as plain data (see role-attributes.ts for why it is apart).

import { SNAPSHOT_FIELDS, type SnapshotFieldSpec } from '../../schema/snapshot-fields';
import type { AttributeSchema, BlockSchema } from '../plugin/contract';
import { secretAttributes } from './secret-attributes';
import { attributeType, type Kind } from './values';

const PLAIN = SNAPSHOT_FIELDS.filter((f) => !f.secret);
const SECRET_SPECS = SNAPSHOT_FIELDS.filter((f) => f.secret);
// The names are shared with reading Terraform's state (one list for both).
export { SNAPSHOT_PLAIN_NAMES, SNAPSHOT_SECRETS } from '../../terraform-state/attribute-names';
export const SNAPSHOT_KIND = Object.fromEntries(PLAIN.map((f) => [f.name, f.kind === 'int' ? 'number' : f.kind])) as Record<string, Kind>;
const REQUIRED = new Set(['storage_type', 'interval', 'path_prefix']);

function attr(spec: SnapshotFieldSpec): AttributeSchema {
  const kind = SNAPSHOT_KIND[spec.name];
  const owner = spec.owner === 'common' ? '' : ` Only for storage_type \`${spec.owner}\`.`;
  return {
    type: attributeType(kind),
    ...(REQUIRED.has(spec.name) ? { required: true } : { optional: true, computed: true }),
    description: spec.description + owner,
  };
}

export const snapshotAutoConfigSchema: BlockSchema = {
  version: 0,
  description:
    'An automated snapshot configuration (`sys/storage/raft/snapshot-auto/config/<name>`): where, how often and how many snapshots the server writes. Secrets come from an environment variable (`*_env`) or a write-only attribute (`*_wo`) and never reach plan or state.',
  attributes: {
    name: { type: { kind: 'string' }, required: true, description: 'Name of the configuration (`sys/storage/raft/snapshot-auto/config/<name>`); a change replaces the resource.' },
    ...Object.fromEntries(PLAIN.map((f) => [f.name, attr(f)])),
    ...Object.fromEntries(
      SECRET_SPECS.flatMap((f) => Object.entries(secretAttributes(f.name, `the \`${f.name}\` (${f.description.replace(/\.$/, '')}; only for storage_type \`${f.owner}\`)`))),
    ),
    retain_on_destroy: { type: { kind: 'bool' }, optional: true, description: 'Destroy leaves the configuration on the server (snapshots already written are never deleted).' },
  },
};
