// auth/<mount>/role/:name/service-accounts (iam) and /labels (vm): add/remove edits of one
// attribute, re-validated as a whole role. A missing role is 404 (Vault crashes here).

import type { Route, RequestContext } from '../../route-family';
import { reply } from '../../core/reply';
import { requestFields } from '../../core/request-fields';
import { Errors } from '../../../schema/errors';
import { roleEditShape, normalizeRoleName } from '../../../schema/cloud-role';
import { applyLabelEdit, applyServiceAccountEdit, type StoredRole } from '../../../schema/cloud-role-write';
import type { CloudState } from './state';

type Edit = (role: StoredRole, add: string[], remove: string[]) => { role: StoredRole; warnings: string[] };

export function roleEditRoutes(state: CloudState): Route[] {
  const editor = (edit: Edit) => async (ctx: RequestContext) => {
    const name = normalizeRoleName(ctx.params.name ?? '');
    const { values } = requestFields(ctx, roleEditShape);
    const role = await state.role(name);
    if (!role) throw Errors.notFound(`role ${JSON.stringify(name)} not found`);
    const { role: next, warnings } = edit(role, values.add ?? [], values.remove ?? []);
    await state.saveRole(name, next);
    ctx.warnings.push(...warnings);
    return reply.data(null);
  };
  return [
    { pattern: 'role/:name/service-accounts', unknownFields: 'reject', operations: { update: editor(applyServiceAccountEdit) } },
    { pattern: 'role/:name/labels', unknownFields: 'reject', operations: { update: editor(applyLabelEdit) } },
  ];
}
