// The four Terraform attributes of a secret field (see secrets.ts), as plain data: the provider
// schema needs them without the fingerprint and plan code (and the zod schemas that code loads).

import type { AttributeSchema } from '../plugin/contract';

export function secretAttributes(field: string, what: string): Record<string, AttributeSchema> {
  const What = what.charAt(0).toUpperCase() + what.slice(1);
  return {
    [`${field}_env`]: {
      type: { kind: 'string' },
      optional: true,
      description: `Name of an environment variable of the deploying process holding ${what}. Read at plan and at apply; the value never reaches plan or state, only \`${field}_fingerprint\` does.`,
    },
    [`${field}_wo`]: {
      type: { kind: 'string' },
      optional: true,
      sensitive: true,
      writeOnly: true,
      description: `${What}, write-only (Terraform >= 1.11): never in plan or state; sent on create and whenever \`${field}_wo_version\` changes.`,
    },
    [`${field}_wo_version`]: {
      type: { kind: 'number' },
      optional: true,
      description: `Change it to send a new \`${field}_wo\` value, or to send the \`${field}_env\` value again where the server holds another (a key Vault rotated is otherwise kept).`,
    },
    [`${field}_fingerprint`]: {
      type: { kind: 'string' },
      computed: true,
      description: `Keyed fingerprint (HMAC-SHA256 with the provider's \`fingerprint_salt\`) of the applied \`${field}_env\` value; a changed value plans an update. Null for \`${field}_wo\`.`,
    },
  };
}

export const secretAttributeNames = (field: string): string[] => [`${field}_env`, `${field}_wo`, `${field}_wo_version`, `${field}_fingerprint`];
