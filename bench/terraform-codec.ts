// The cost of the msgpack codec on the keyward backend's shape: 10,000 roles of ~15 attributes in
// one map-nested attribute. Prints encode/decode time beside a JSON round trip of the same data.
import { UNKNOWN, type Value, type ValueType } from '../src/terraform/plugin/contract';
import { decodeValue, encodeValue } from '../src/terraform/plugin/msgpack-codec';

const str: ValueType = { kind: 'string' };
const set: ValueType = { kind: 'set', element: str };
const role: ValueType = {
  kind: 'object',
  attributes: {
    type: str,
    role_id: str,
    bound_service_accounts: set,
    bound_projects: set,
    token_policies: set,
    token_bound_cidrs: set,
    add_group_aliases: { kind: 'bool' },
    token_ttl: str,
    token_max_ttl: str,
    token_period: str,
    token_num_uses: { kind: 'number' },
    token_type: str,
    max_jwt_exp: str,
    bound_labels: { kind: 'map', element: str },
    bound_zones: set,
  },
};
const type: ValueType = { kind: 'object', attributes: { path: str, roles: { kind: 'map', element: role } } };
const roles: Record<string, Value> = {};
for (let i = 0; i < 10_000; i++) {
  roles[`role-${i}`] = {
    type: 'iam',
    role_id: i % 10 === 0 ? UNKNOWN : `id-${i}`,
    bound_service_accounts: [`sa-${i}@p.iam.gserviceaccount.com`],
    bound_projects: ['p'],
    token_policies: ['default', `pol-${i}`],
    token_bound_cidrs: ['10.0.0.0/8'],
    add_group_aliases: false,
    token_ttl: '1h',
    token_max_ttl: '2h',
    token_period: null,
    token_num_uses: 0,
    token_type: 'default',
    max_jwt_exp: '15m',
    bound_labels: { team: 'a' },
    bound_zones: null,
  };
}
const value = { path: 'gcp', roles };
const t0 = performance.now();
const bytes = encodeValue(value, type);
const t1 = performance.now();
decodeValue(bytes, type);
const t2 = performance.now();
const json = JSON.stringify(value);
JSON.parse(json);
const t3 = performance.now();
console.log(
  `msgpack encode ${(t1 - t0).toFixed(1)} ms, decode ${(t2 - t1).toFixed(1)} ms, ${bytes.length} bytes; JSON round trip baseline ${(t3 - t2).toFixed(1)} ms (ratio ${((t2 - t0) / (t3 - t2)).toFixed(1)}x)`,
);
