// keyward_exclusive_snapshot_configs: the set of snapshot config names a stack manages; every other
// config on the server shows up in state on refresh (so it plans as removed) and apply deletes it.

import { mapLimit } from '../../reconcile/pool';
import { DiagnosticsError, type ObjectValue, type ResourceHandler } from '../plugin/contract';
import { clientOf, type KeywardProviderContext } from './context';

const names = (o: ObjectValue | null): string[] => (o && Array.isArray(o.names) ? o.names.filter((n): n is string => typeof n === 'string') : []);

export const exclusiveSnapshotConfigs: ResourceHandler<KeywardProviderContext> = {
  typeName: 'keyward_exclusive_snapshot_configs',
  schema: {
    version: 0,
    description:
      'Deletes every automated snapshot configuration on the server not named in `names`. Refresh adds the other configurations to `names` in state, so a plan shows them as removed. Not importable: it owns no server object.',
    attributes: {
      names: {
        type: { kind: 'set', element: { kind: 'string' } },
        required: true,
        description: 'Names of the snapshot configurations the configuration manages (usually the `name` of each `keyward_snapshot_auto_config`); every other one is deleted.',
      },
    },
  },
  async read(ctx, state) {
    if (!ctx.client) return { state };
    const managed = new Set(names(state));
    const extra = (await ctx.client.snapshots.list()).filter((n) => !managed.has(n));
    return { state: extra.length ? { ...state, names: [...names(state), ...extra] } : state };
  },
  async plan(_ctx, req) {
    return { planned: req.config ? { ...req.config } : null };
  },
  async apply(ctx, req) {
    if (!req.planned) return { state: null };
    const client = clientOf(ctx);
    const keep = new Set(names(req.planned));
    const extra = (await client.snapshots.list()).filter((n) => !keep.has(n));
    await mapLimit(extra, ctx.parallelism, (n) => client.snapshots.delete(n));
    return { state: { ...req.planned } };
  },
  async import() {
    throw new DiagnosticsError([{ severity: 'error', summary: 'keyward_exclusive_snapshot_configs cannot be imported; declare it instead (it owns no server object)' }]);
  },
};
