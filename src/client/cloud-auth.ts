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
  /** Workload identity federation (Vault Enterprise): the account impersonated, the token audience and TTL (s). */
  service_account_email?: string;
  identity_token_audience?: string;
  identity_token_ttl?: number;
  /** Root credential rotation: a cron schedule or a period (s), a window (s) after the schedule. */
  rotation_schedule?: string;
  rotation_period?: number;
  rotation_window?: number;
  disable_automated_rotation?: boolean;
  [extra: string]: unknown;
}

/**
 * GET auth/<mount>/role/<name> `data`: durations in seconds, labels as a map. The fields are the
 * role field table's (src/schema/cloud-role-fields.ts), read through it by src/reconcile/canonical.ts;
 * only what the client itself looks at is typed here, so a new field needs no edit.
 */
export interface CloudRoleRead {
  role_id?: string;
  type?: 'iam' | 'vm' | string;
  [field: string]: unknown;
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
   * Merge semantics on the server (the GCP plugin's path_config.go): only the fields sent change.
   * Resolves to the server's warnings in keyward's words.
   */
  async writeConfig(body: Record<string, unknown>): Promise<string[]> {
    const t = await this.c.translator();
    return t.errorsFromServer(await this.c.write(this.p('config'), t.toServer('cloud-config', body)));
  }

  /** POST auth/<mount>/config/rotate-root: the server replaces its key; the new key's id. */
  async rotateRoot(): Promise<{ private_key_id: string }> {
    // Not idempotent: each call creates a key and deletes the previous one at Google.
    const res = await this.c.request('POST', this.p('config/rotate-root'), {}, { notIdempotent: true });
    const data = (res.body as { data?: { private_key_id?: unknown } } | undefined)?.data;
    return { private_key_id: String(data?.private_key_id ?? '') };
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
    return t.errorsFromServer(await this.c.write(this.p(`role/${seg(name)}`), t.toServer('cloud-role', body)));
  }

  deleteRole(name: string): Promise<void> {
    return this.c.delete(this.p(`role/${seg(name)}`));
  }

  async editServiceAccounts(name: string, edit: { add?: string[]; remove?: string[] }): Promise<string[]> {
    const t = await this.c.translator();
    return t.errorsFromServer(await this.c.write(this.p(`role/${seg(name)}/service-accounts`), { add: edit.add ?? [], remove: edit.remove ?? [] }));
  }

  async editLabels(name: string, edit: { add?: string[]; remove?: string[] }): Promise<string[]> {
    const t = await this.c.translator();
    return t.errorsFromServer(await this.c.write(this.p(`role/${seg(name)}/labels`), { add: edit.add ?? [], remove: edit.remove ?? [] }));
  }
}
