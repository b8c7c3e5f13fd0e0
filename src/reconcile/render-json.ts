// JSON rendering of a plan for machines, and the zod schema that documents and checks it
// (docs/plan-json.md). The JSON is the plan data itself: no secret value ever exists in it.

import { z } from 'zod';
import { MEANING_LABELS, type Json, type Plan } from './model';

const json: z.ZodType<Json> = z.lazy(() => z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(json), z.record(z.string(), json)]));

const action = z.enum(['no-op', 'create', 'update', 'replace', 'delete']);

const objectPlan = z
  .object({
    id: z.string(),
    address: z.object({ kind: z.enum(['auth-mount', 'auth-config', 'role', 'snapshot-config']), mount: z.string().optional(), name: z.string().optional() }).strict(),
    action,
    reason: z.string().optional(),
    changes: z.array(
      z
        .object({
          field: z.string(),
          before: json.optional(),
          after: json.optional(),
          sensitive: z.boolean().optional(),
          forcesReplace: z.boolean().optional(),
        })
        .strict()
        // A sensitive change carries only markers, never a value.
        .refine((c) => !c.sensitive || [c.before, c.after].every((v) => v === undefined || v === null || v === '(sensitive)'), 'sensitive changes carry no values'),
    ),
    unchangedFields: z.number().int().nonnegative(),
    warnings: z.array(z.string()).optional(),
    meanings: z.array(z.object({ label: z.enum(MEANING_LABELS), field: z.string().optional(), explanation: z.string() }).strict()).optional(),
    refused: z
      .object({ label: z.enum(MEANING_LABELS), field: z.string(), message: z.string() })
      .strict()
      .optional(),
  })
  .strict();

export const planJsonSchema = z
  .object({
    formatVersion: z.literal(1),
    server: z.object({ address: z.string(), namespace: z.string().optional(), snapshotAddress: z.string().optional() }).strict(),
    objects: z.array(objectPlan),
    drift: z.array(
      z
        .object({
          id: z.string(),
          field: z.string(),
          lastApplied: json.optional(),
          live: json.optional(),
          sensitive: z.boolean().optional(),
          kind: z.enum(['changed', 'deleted', 'created']),
        })
        .strict(),
    ),
    summary: z
      .object({
        create: z.number().int(),
        update: z.number().int(),
        replace: z.number().int(),
        delete: z.number().int(),
        noop: z.number().int(),
        deferred: z.number().int().optional(),
      })
      .strict(),
    liveDigest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
    deferred: z.array(z.object({ resource: z.string(), reason: z.string(), explanation: z.string(), object: objectPlan }).strict()).optional(),
    unsetSecrets: z.array(z.object({ id: z.string(), field: z.string(), env: z.string() }).strict()).optional(),
    lastApplied: z
      .object({ kind: z.enum(['terraform-state', 'terraform-plan', 'keyward-record', 'environment', 'none']), location: z.string().optional() })
      .strict()
      .optional(),
  })
  .strict();

export function renderJson(p: Plan): string {
  return JSON.stringify(p, null, 2) + '\n';
}
