// The cty type of a value placed in a dynamic-typed attribute: Terraform needs it on the wire.
import { UNKNOWN, type Value } from './contract';
import type { WireType } from './cty-type';

export function inferType(value: Value): WireType {
  if (value === null || value === UNKNOWN) return { kind: 'dynamic' };
  if (typeof value === 'string') return { kind: 'string' };
  if (typeof value === 'number') return { kind: 'number' };
  if (typeof value === 'boolean') return { kind: 'bool' };
  if (Array.isArray(value)) return { kind: 'tuple', elements: value.map(inferType) };
  const attributes: Record<string, WireType> = {};
  for (const [k, v] of Object.entries(value)) attributes[k] = inferType(v);
  return { kind: 'object', attributes } as WireType;
}
