// Typed calls for the cloud auth method at one mount: config, roles, and the role edit endpoints.

import { seg, type VaultClient } from './vault-client';

/** GET auth/<mount>/config `data` (credentials are never returned, only their identifiers). */
export interface CloudConfigRead {
  client_email?: string;
  client_id?: string;
  private_key_id?: string;
  project_id?: string;
  iam_alias?: string;
  iam_metadata?: string[];
  vm_alias?: string;
  vm_metadata?: string[];
  custom_endpoint?: Record<string, string>;
  [extra: string]: unknown;
}

/** GET auth/<mount>/role/<name> `data`: durations in seconds, labels as a map. */
export interface CloudRoleRead {
  role_id?: string;
  type?: 'iam' | 'vm' | string;
  bound_service_accounts?: string[];
  bound_projects?: string[];
  add_group_aliases?: boolean;
  max_jwt_exp?: number;
  allow_vm_inference?: boolean;
  bound_zones?: string[];
  bound_regions?: string[];
  bound_instance_groups?: string[];
  bound_labels?: Record<string, string>;
  token_policies?: string[];
  token_bound_cidrs?: string[];
  token_ttl?: number;
  token_max_ttl?: number;
  token_explicit_max_ttl?: number;
  token_period?: number;
  token_no_default_policy?: boolean;
  token_num_uses?: number;
  token_type?: string;
  [extra: string]: unknown;
}

export class CloudAuthApi {
  constructor(
    private readonly c: VaultClient,
    readonly mount: string,
  ) {}

  private p(rest: string): string {
    return `auth/${this.mount}/${rest}`;
  }

  async readConfig(): Promise<CloudConfigRead | undefined> {
    const t = await this.c.translator();
    const data = await this.c.read<CloudConfigRead>(this.p('config'));
    return data && (t.fromServer('cloud-config', data) as CloudConfigRead);
  }

  /**
   * Merge semantics on the server: only the fields sent change. Fields keyward does not manage
   * (Vault's workload identity and root rotation settings) are never sent, so never reset.
   */
  async writeConfig(body: Record<string, unknown>): Promise<string[]> {
    const t = await this.c.translator();
    return this.c.write(this.p('config'), t.toServer('cloud-config', body));
  }

  async listRoles(): Promise<string[]> {
    await this.c.translator(); // error texts in keyward's words from the first call on
    return this.c.list(this.p('roles'));
  }

  /**
   * Every role, with its data where the LIST carried it (keyward's key_info; Vault sends none, so
   * its roles come back without data and the caller reads them with readRole).
   */
  async listRolesWithData(): Promise<Map<string, CloudRoleRead | undefined>> {
    const t = await this.c.translator();
    const { keys, keyInfo } = await this.c.listWithInfo(this.p('roles'));
    const out = new Map<string, CloudRoleRead | undefined>();
    for (const name of keys) {
      const data = keyInfo[name];
      out.set(name, data && typeof data === 'object' && !Array.isArray(data) ? (t.fromServer('cloud-role', data as Record<string, unknown>) as CloudRoleRead) : undefined);
    }
    return out;
  }

  async readRole(name: string): Promise<CloudRoleRead | undefined> {
    const t = await this.c.translator();
    const data = await this.c.read<CloudRoleRead>(this.p(`role/${seg(name)}`));
    return data && (t.fromServer('cloud-role', data) as CloudRoleRead);
  }

  async writeRole(name: string, body: Record<string, unknown>): Promise<string[]> {
    const t = await this.c.translator();
    return this.c.write(this.p(`role/${seg(name)}`), t.toServer('cloud-role', body));
  }

  deleteRole(name: string): Promise<void> {
    return this.c.delete(this.p(`role/${seg(name)}`));
  }

  editServiceAccounts(name: string, edit: { add?: string[]; remove?: string[] }): Promise<string[]> {
    return this.c.write(this.p(`role/${seg(name)}/service-accounts`), { add: edit.add ?? [], remove: edit.remove ?? [] });
  }

  editLabels(name: string, edit: { add?: string[]; remove?: string[] }): Promise<string[]> {
    return this.c.write(this.p(`role/${seg(name)}/labels`), { add: edit.add ?? [], remove: edit.remove ?? [] });
  }
}
