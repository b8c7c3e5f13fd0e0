// The cloud emulator's world, described as JSON: organizations, folders, projects, service
// accounts, instances and instance groups. Parsed with zod and checked for dangling references.

import { z } from 'zod';
import { parseAttributeCondition } from './attribute-condition';

const parentRef = z.string().regex(/^(organizations|folders)\/\d+$/, 'parent must be "organizations/<id>" or "folders/<id>"');

const providerSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]{4,32}$/, 'provider id: 4-32 lower-case letters, digits or "-"'),
    /** OIDC issuer; its discovery document and keys are fetched over HTTP at each exchange. */
    issuerUri: z.string().url(),
    /** Accepted `aud` values; empty = the provider's own resource name (https: or // form). */
    allowedAudiences: z.array(z.string().min(1)).default([]),
    /** A CEL subset on the subject: assertion.sub ==/!= "x", .startsWith("x"), .endsWith("x"), joined by && and ||. */
    attributeCondition: z.string().optional(),
    disabled: z.boolean().default(false),
  })
  .strict();

/** Google's REST field names (workloadIdentityPoolId, workloadIdentityPoolProviderId) as aliases. */
function renameKey(v: unknown, from: string, to: string): unknown {
  if (!v || typeof v !== 'object' || !(from in v) || to in v) return v;
  const { [from]: value, ...rest } = v as Record<string, unknown>;
  return { ...rest, [to]: value };
}

function flattenOidc(v: unknown): unknown {
  if (!v || typeof v !== 'object' || !('oidc' in v)) return v;
  const { oidc, ...rest } = v as Record<string, unknown>;
  return oidc && typeof oidc === 'object' ? { ...rest, ...(oidc as Record<string, unknown>) } : v;
}

export const descriptionSchema = z
  .object({
    organizations: z.array(z.object({ id: z.string().regex(/^\d+$/), displayName: z.string().optional() }).strict()).default([]),
    folders: z.array(z.object({ id: z.string().regex(/^\d+$/), parent: parentRef, displayName: z.string().optional() }).strict()).default([]),
    projects: z
      .array(
        z
          .object({
            id: z.string().min(1),
            number: z.string().regex(/^\d+$/),
            parent: parentRef.optional(),
            /** Project-level IAM policy; roles/iam.workloadIdentityUser here covers every account in the project. */
            bindings: z.array(z.object({ role: z.string().min(1), members: z.array(z.string().min(1)) }).strict()).default([]),
          })
          .strict(),
      )
      .default([]),
    serviceAccounts: z
      .array(
        z
          .object({
            email: z.string().includes('@'),
            uniqueId: z.string().regex(/^\d+$/),
            project: z.string(),
            displayName: z.string().optional(),
            disabled: z.boolean().default(false),
            /** A deleted account: every lookup answers 404 and its keys are gone. */
            deleted: z.boolean().default(false),
            /** How many user-managed keys to generate (their ids are listed in the key metadata). */
            keys: z.number().int().min(0).max(10).default(1),
            /** IAM policy on the account, e.g. roles/iam.workloadIdentityUser for federated principals. */
            bindings: z.array(z.object({ role: z.string().min(1), members: z.array(z.string().min(1)) }).strict()).default([]),
          })
          .strict(),
      )
      .default([]),
    instances: z
      .array(
        z
          .object({
            name: z.string().min(1),
            id: z.string().regex(/^\d+$/),
            project: z.string(),
            zone: z.string().min(3),
            status: z.enum(['PROVISIONING', 'STAGING', 'RUNNING', 'STOPPING', 'STOPPED', 'SUSPENDED', 'TERMINATED']).default('RUNNING'),
            /** RFC 3339 creation time. */
            creationTimestamp: z.string().default('2026-01-01T00:00:00.000-00:00'),
            labels: z.record(z.string(), z.string()).default({}),
            serviceAccount: z.string().includes('@'),
          })
          .strict(),
      )
      .default([]),
    instanceGroups: z
      .array(
        z
          .object({
            name: z.string().min(1),
            project: z.string(),
            zone: z.string().optional(),
            region: z.string().optional(),
            /** Instance names (same project). */
            instances: z.array(z.string()).default([]),
          })
          .strict()
          .refine((g) => (g.zone === undefined) !== (g.region === undefined), 'an instance group has exactly one of zone or region'),
      )
      .default([]),
    workloadIdentityPools: z
      .array(
        z.preprocess(
          (v) => renameKey(v, 'workloadIdentityPoolId', 'id'),
          z
            .object({
              /** Project id or number (the number names the pool, as in Google's resource names). */
              project: z.string(),
              id: z.string().regex(/^[a-z0-9-]{4,32}$/, 'pool id: 4-32 lower-case letters, digits or "-"'),
              disabled: z.boolean().default(false),
              // Google's REST shape nests issuerUri and allowedAudiences under `oidc`; both are accepted.
              providers: z.array(z.preprocess((v) => flattenOidc(renameKey(v, 'workloadIdentityPoolProviderId', 'id')), providerSchema)).default([]),
            })
            .strict(),
        ),
      )
      .default([]),
  })
  .strict();

export type Description = z.output<typeof descriptionSchema>;
export type DescribedServiceAccount = Description['serviceAccounts'][number];
export type DescribedInstance = Description['instances'][number];
export type DescribedPool = Description['workloadIdentityPools'][number];
export type DescribedProvider = DescribedPool['providers'][number];

/** Parses and cross-checks a description; throws an Error listing every problem. */
export function parseDescription(input: unknown): Description {
  const r = descriptionSchema.safeParse(input);
  if (!r.success) {
    throw new Error(`invalid cloud emulator description: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const d = r.data;
  const problems: string[] = [];
  const orgs = new Set(d.organizations.map((o) => o.id));
  const folders = new Set(d.folders.map((f) => f.id));
  const projects = new Set(d.projects.map((p) => p.id));
  const refOk = (ref: string) => {
    const [kind, id] = ref.split('/');
    return kind === 'organizations' ? orgs.has(id) : folders.has(id);
  };
  for (const f of d.folders) if (!refOk(f.parent)) problems.push(`folder ${f.id}: unknown parent ${f.parent}`);
  for (const p of d.projects) if (p.parent && !refOk(p.parent)) problems.push(`project ${p.id}: unknown parent ${p.parent}`);
  const emails = new Set(d.serviceAccounts.map((s) => s.email));
  for (const s of d.serviceAccounts) if (!projects.has(s.project)) problems.push(`service account ${s.email}: unknown project ${s.project}`);
  for (const i of d.instances) {
    if (!projects.has(i.project)) problems.push(`instance ${i.name}: unknown project ${i.project}`);
    if (!emails.has(i.serviceAccount)) problems.push(`instance ${i.name}: unknown service account ${i.serviceAccount}`);
  }
  for (const g of d.instanceGroups) {
    for (const n of g.instances) {
      if (!d.instances.some((i) => i.name === n && i.project === g.project)) problems.push(`instance group ${g.name}: unknown instance ${n}`);
    }
  }
  for (const pool of d.workloadIdentityPools) {
    // A pool's project may be named by its number, as Google's resource names do.
    pool.project = d.projects.find((p) => p.number === pool.project)?.id ?? pool.project;
    if (!projects.has(pool.project)) problems.push(`workload identity pool ${pool.id}: unknown project ${pool.project}`);
    for (const p of pool.providers) {
      if (p.attributeCondition === undefined) continue;
      try {
        parseAttributeCondition(p.attributeCondition);
      } catch (e) {
        problems.push(`provider ${pool.id}/${p.id}: ${(e as Error).message}`);
      }
    }
  }
  if (problems.length > 0) throw new Error(`invalid cloud emulator description: ${problems.join('; ')}`);
  return d;
}

/** Ancestry of a project from the project upwards, as getAncestry returns it. */
export function ancestry(d: Description, projectId: string): { type: string; id: string }[] | undefined {
  const p = d.projects.find((x) => x.id === projectId);
  if (!p) return undefined;
  const out = [{ type: 'project', id: p.id }];
  let ref = p.parent;
  for (let depth = 0; ref && depth < 20; depth++) {
    const [kind, id] = ref.split('/');
    if (kind === 'organizations') {
      out.push({ type: 'organization', id });
      break;
    }
    out.push({ type: 'folder', id });
    ref = d.folders.find((f) => f.id === id)?.parent;
  }
  return out;
}
