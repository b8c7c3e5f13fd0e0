// vm login: the instance identity token's compute_engine claims, the instance read from the
// Compute API (status, creation time, id), then the role's bindings evaluated against the API
// instance: projects, labels, zones / regions, instance groups (zonal or regional), accounts.

import { Errors } from '../../../schema/errors';
import { zoneToRegion } from '../../../schema/cloud-role';
import { effectiveMetadata, type StoredCloudConfig } from '../../../schema/cloud-config';
import type { StoredRole } from '../../../schema/cloud-role-write';
import type { IdpClient, InstanceInfo } from '../../../idp-client/client';
import type { LoginResult } from '../../token/login-result';
import type { ComputeEngineClaims } from './jwt';
import { accountBound, groupAliases, lookupServiceAccount, providerFailure, selectMetadata, tokenSettings } from './login-common';

const LIVE_STATUSES = ['PROVISIONING', 'RUNNING', 'STAGING'];
const list = (xs: readonly string[]) => `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;

/** Reads the instance the claims name and checks it is alive and the same VM that got the token. */
export async function verifyInstance(client: IdpClient, ce: ComputeEngineClaims): Promise<InstanceInfo> {
  const where = `(project ${ce.project_id}, zone: ${ce.zone}, instance: ${ce.instance_name})`;
  if (!ce.project_id || !ce.zone || !ce.instance_name) throw Errors.badRequest(`expected JWT to have claims with VM metadata (project_id, zone, instance_name)`);
  let inst: InstanceInfo;
  try {
    inst = await client.getInstance(ce.project_id, ce.zone, ce.instance_name);
  } catch (e) {
    throw providerFailure(e, `error when attempting to find instance ${where}: instance not found`, `error when attempting to find instance ${where}`);
  }
  if (!LIVE_STATUSES.includes(inst.status)) {
    throw Errors.badRequest(`error when attempting to find instance ${where}: instance ${inst.name} found but has invalid status '${inst.status}'`);
  }
  const created = Date.parse(inst.creationTimestamp) / 1000;
  const claimed = Number(ce.instance_creation_timestamp);
  if (Number.isFinite(created) && (!Number.isFinite(claimed) || claimed < created - 1)) {
    throw Errors.badRequest(`error when attempting to find instance ${where}: token was issued to an earlier instance with the same name`);
  }
  if (inst.id && inst.id !== ce.instance_id) {
    throw Errors.badRequest(`error when attempting to find instance ${where}: instance id ${ce.instance_id} in the token does not match ${inst.id}`);
  }
  return inst;
}

/** The vm role's bindings against the API instance; throws 400 naming the unmet binding. */
export async function authorizeVm(client: IdpClient, role: StoredRole, project: string, inst: InstanceInfo, sub: string): Promise<void> {
  if (role.bound_projects.length > 0 && !role.bound_projects.includes(project)) {
    throw Errors.badRequest(`instance ${JSON.stringify(inst.id)} (project ${JSON.stringify(project)}) not in bound projects ${list(role.bound_projects)}`);
  }
  for (const [k, v] of Object.entries(role.bound_labels)) {
    if (inst.labels[k] !== v) throw Errors.badRequest(`instance missing bound label "${k}:${v}"`);
  }
  const zone = inst.zone;
  const region = zoneToRegion(zone);
  if (role.bound_zones.length > 0) {
    if (!role.bound_zones.includes(zone)) throw Errors.badRequest(`instance not in bound zones ${list(role.bound_zones)} (it is in ${zone})`);
  } else if (role.bound_regions.length > 0 && !role.bound_regions.includes(region)) {
    throw Errors.badRequest(`instance not in bound regions ${list(role.bound_regions)} (it is in ${region})`);
  }
  if (role.bound_instance_groups.length > 0) await authorizeGroups(client, role, project, inst);
  if (role.bound_service_accounts.length > 0) {
    const sa = await lookupServiceAccount(client, sub);
    if (!accountBound(role, sa)) {
      throw Errors.badRequest(`service account ${JSON.stringify(sa.uniqueId)} (${JSON.stringify(sa.email)}) is not in bound service accounts ${list(role.bound_service_accounts)}`);
    }
  }
}

async function authorizeGroups(client: IdpClient, role: StoredRole, project: string, inst: InstanceInfo): Promise<void> {
  let locations;
  try {
    locations = await client.instanceGroupLocations(project);
  } catch (e) {
    throw providerFailure(
      e,
      `failed to list instance groups for project ${JSON.stringify(project)}: project not found`,
      `failed to list instance groups for project ${JSON.stringify(project)}`,
    );
  }
  const byZone = role.bound_zones.length > 0;
  for (const g of role.bound_instance_groups) {
    const scopes: ({ zone: string } | { region: string })[] = [];
    if (byZone) {
      for (const z of locations.zonal.get(g) ?? []) if (role.bound_zones.includes(z)) scopes.push({ zone: z });
    } else {
      for (const z of locations.zonal.get(g) ?? []) if (role.bound_regions.includes(zoneToRegion(z))) scopes.push({ zone: z });
      for (const r of locations.regional.get(g) ?? []) if (role.bound_regions.includes(r)) scopes.push({ region: r });
    }
    // A bound group that does not exist where the role says is skipped, not fatal: membership in
    // one bound group is enough (Vault's order-dependent abort is not reproduced).
    for (const scope of scopes) {
      let member: boolean;
      try {
        member = await client.groupContains(project, scope, g, inst.selfLink);
      } catch (e) {
        throw providerFailure(
          e,
          `instance group ${JSON.stringify(g)} not found in project ${JSON.stringify(project)}`,
          `failed to list instances in instance group ${JSON.stringify(g)} for project ${JSON.stringify(project)}`,
        );
      }
      if (member) return;
    }
  }
  throw Errors.badRequest(`instance is not part of instance groups ${list(role.bound_instance_groups)} in the bound ${byZone ? 'zones' : 'regions'}`);
}

/** Metadata values a vm token can carry (selected by vm_metadata). */
export function vmMetadata(roleName: string, ce: ComputeEngineClaims, sa: { uniqueId: string; email: string }): Record<string, string> {
  return {
    instance_creation_timestamp: ce.instance_creation_timestamp,
    instance_id: ce.instance_id,
    instance_name: ce.instance_name,
    project_id: ce.project_id,
    project_number: ce.project_number,
    role: roleName,
    service_account_id: sa.uniqueId,
    service_account_email: sa.email,
    zone: ce.zone,
  };
}

export async function loginVm(
  client: IdpClient,
  config: StoredCloudConfig,
  role: StoredRole,
  roleName: string,
  ce: ComputeEngineClaims | undefined,
  sub: string,
): Promise<LoginResult> {
  if (!ce) throw Errors.badRequest('expected JWT to have claims with VM metadata (an instance identity token requested with format=full)');
  if (role.bound_projects.length > 0 && !role.bound_projects.includes(ce.project_id)) {
    throw Errors.badRequest(`instance ${JSON.stringify(ce.instance_id)} (project ${JSON.stringify(ce.project_id)}) not in bound projects ${list(role.bound_projects)}`);
  }
  const inst = await verifyInstance(client, ce);
  await authorizeVm(client, role, ce.project_id, inst, sub);
  const sa = await lookupServiceAccount(client, sub);
  const metadata = selectMetadata(vmMetadata(roleName, ce, sa), effectiveMetadata(config.vm_metadata, 'vm'));
  const aliasName = config.vm_alias === 'instance_id' ? `vm-${inst.id}` : role.role_id;
  return {
    displayName: inst.name,
    settings: tokenSettings(role),
    metadata,
    alias: { name: aliasName, metadata },
    groupAliases: role.add_group_aliases ? await groupAliases(client, ce.project_id) : undefined,
  };
}
