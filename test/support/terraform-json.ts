// Terraform's JSON around one keyward_cloud_auth_backend `b`, as keyward reads it without running
// Terraform: the state (`terraform state pull`, format 4) for the PR plan's record, and the saved
// plan (`terraform show -json tfplan`) for `keyward show`. The attribute values are the caller's.

const TYPE = 'keyward_cloud_auth_backend';

/** A state holding `b`, under keyward's provider, with these attributes. */
export const backendState = (attributes: Record<string, unknown>) => ({
  version: 4,
  resources: [{ mode: 'managed', type: TYPE, name: 'b', provider: 'provider["registry.terraform.io/keyward/keyward"]', instances: [{ attributes }] }],
});

/** A saved plan's JSON that changes `b` from `before` to `after` (Terraform's actions for it: `actions`). */
export const backendPlan = (before: unknown, after: unknown, actions: string[] = ['update']) => ({
  format_version: '1.2',
  terraform_version: '1.11.0',
  resource_changes: [{ address: `${TYPE}.b`, mode: 'managed', type: TYPE, name: 'b', change: { actions, before, after } }],
});
