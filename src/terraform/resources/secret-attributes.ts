// The four Terraform attributes of a secret field (see secrets.ts), as plain data: the provider
// schema needs them without the fingerprint and plan code (and the zod schemas that code loads).

import type { AttributeSchema } from '../plugin/contract';

export function secretAttributes(field: string, what: string): Record<string, AttributeSchema> {
  return {
    [`${field}_env`]: { type: { kind: 'string' }, optional: true, description: `Name of an environment variable of the deploying process holding ${what}.` },
    [`${field}_wo`]: { type: { kind: 'string' }, optional: true, sensitive: true, writeOnly: true, description: `${what}, write-only (Terraform >= 1.11).` },
    [`${field}_wo_version`]: { type: { kind: 'number' }, optional: true, description: `Change to send a new ${field}_wo value.` },
    [`${field}_fingerprint`]: { type: { kind: 'string' }, computed: true, description: `Keyed fingerprint of the applied ${field} (from ${field}_env).` },
  };
}

export const secretAttributeNames = (field: string): string[] => [`${field}_env`, `${field}_wo`, `${field}_wo_version`, `${field}_fingerprint`];
