// Renewal of tokens issued by the cloud method: the role must still exist with the same policies,
// and the identity must still pass the role's current bindings (iam: the account; vm: the instance).

import type { RenewContext } from '../../route-family';
import type { RenewDecision } from '../../token/login-result';
import { ApiError, Errors } from '../../../schema/errors';
import type { ComputeEngineClaims } from './jwt';
import type { CloudState } from './state';
import { lookupServiceAccount } from './login-common';
import { authorizeIam, VM_INFERENCE } from './login-iam';
import { authorizeVm, verifyInstance } from './login-vm';

const policySet = (ps: readonly string[]) => [...new Set(ps.filter((p) => p !== 'default'))].sort().join('\n');

export async function renewCloudToken(state: CloudState, ctx: RenewContext): Promise<RenewDecision> {
  const meta = ctx.token.meta;
  const roleName = meta.role;
  if (!roleName) throw Errors.badRequest('role name metadata not associated with auth token, invalid');
  const role = await state.role(roleName);
  if (!role) throw Errors.badRequest(`role ${JSON.stringify(roleName)} no longer exists`);
  if (policySet(role.token_policies) !== policySet(ctx.token.policies)) {
    throw Errors.badRequest(`policies on role ${JSON.stringify(roleName)} have changed, cannot renew`);
  }
  const client = state.clientFor(await state.config());
  if (!meta.service_account_id) throw Errors.badRequest('service account id metadata not associated with auth token, invalid');
  try {
    if (role.type === 'iam') {
      const inferred = ctx.token.internal?.[VM_INFERENCE];
      if (inferred) {
        if (!role.allow_vm_inference) throw Errors.badRequest('the token was obtained through allow_vm_inference, which the role no longer allows');
        await verifyInstance(client, JSON.parse(inferred) as ComputeEngineClaims);
      }
      const sa = await lookupServiceAccount(client, meta.service_account_id);
      authorizeIam(role, sa);
    } else {
      const need = ['project_id', 'zone', 'instance_id', 'instance_name', 'project_number', 'instance_creation_timestamp'] as const;
      for (const k of need) if (!meta[k]) throw Errors.badRequest(`invalid auth metadata: expected '${k}' field`);
      const ce: ComputeEngineClaims = {
        project_id: meta.project_id,
        project_number: meta.project_number,
        zone: meta.zone,
        instance_id: meta.instance_id,
        instance_name: meta.instance_name,
        instance_creation_timestamp: meta.instance_creation_timestamp,
      };
      const inst = await verifyInstance(client, ce);
      await authorizeVm(client, role, ce.project_id, inst, meta.service_account_id);
    }
  } catch (e) {
    if (ApiError.isApiError(e) && e.status < 500) {
      throw Errors.badRequest(`could not renew token for role ${roleName}: ${e.errors.join('; ')}`);
    }
    throw e;
  }
  return { ttl: role.token_ttl, maxTtl: role.token_max_ttl, period: role.token_period };
}
