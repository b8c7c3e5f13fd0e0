// Reads of many keyward_cloud_auth_role resources from one LIST. Terraform refreshes (and, for a
// create, checks) each role resource with its own RPC; one GET each cost a request, a token
// check on the server and an HTTP round trip per role. After a few lookups on a mount, the provider
// LISTs the mount's roles once (keyward's LIST carries each role's read shape in key_info) and
// answers the rest from it.
//
// Never stale across operations: Terraform starts a provider process per command phase (validate,
// plan, apply), so a listing lives within one of them, and at most MAX_AGE_MS besides. A role this
// process wrote or deleted is read again, a role the LIST did not carry data for is read (Vault's
// LIST has keys only, so the Vault dialect reads every role; so does a token that may not LIST),
// and a role missing from the LIST is confirmed absent by a GET before a refresh drops it.

import type { CloudRoleRead } from '../../client/cloud-auth';
import type { VaultClient } from '../../client/vault-client';

/** Lookups on a mount answered by GETs before the mount is listed (a LIST of a large mount costs more than a few GETs). */
const DIRECT_LOOKUPS = 8;
const MAX_AGE_MS = 10_000;

interface Listing {
  at: number;
  /** Role name -> its data (undefined: listed without data). */
  roles: Promise<Map<string, CloudRoleRead | undefined>>;
}

class MountRoles {
  private lookups = 0;
  private listing?: Listing;
  /** Roles this process wrote or deleted (or began to): always read directly, whatever listing is newer. */
  private readonly touched = new Set<string>();

  constructor(
    private readonly client: VaultClient,
    private readonly mount: string,
  ) {}

  /** The LIST failed (a token that may read roles but not list them): this process reads directly. */
  private unlisted = false;

  /** The listing, once enough lookups came (undefined before, or when the LIST failed). */
  private async listed(): Promise<Map<string, CloudRoleRead | undefined> | undefined> {
    if (this.unlisted || ++this.lookups <= DIRECT_LOOKUPS) return undefined;
    const now = Date.now();
    if (!this.listing || now - this.listing.at > MAX_AGE_MS) {
      const roles = this.client.cloud(this.mount).listRolesWithData();
      this.listing = { at: now, roles };
      // The lookups waiting on a failed LIST read directly, and so does every later one.
      roles.catch(() => {
        this.unlisted = true;
        this.listing = undefined;
      });
    }
    try {
      return await this.listing.roles;
    } catch {
      return undefined;
    }
  }

  async read(name: string): Promise<CloudRoleRead | undefined> {
    const roles = await this.listed();
    const data = roles && !this.touched.has(name) ? roles.get(name) : undefined;
    return data ?? this.client.cloud(this.mount).readRole(name);
  }

  /** Whether the role exists, for plan's early refusal (apply checks again with a GET). */
  async exists(name: string): Promise<boolean> {
    const roles = await this.listed();
    if (roles && !this.touched.has(name)) return roles.has(name);
    return (await this.client.cloud(this.mount).readRole(name)) !== undefined;
  }

  wrote(name: string): void {
    this.touched.add(name);
  }
}

const perClient = new WeakMap<VaultClient, Map<string, MountRoles>>();

/** The role reads of `mount` through `client`, shared by every resource of this process. */
export function mountRoles(client: VaultClient, mount: string): MountRoles {
  let mounts = perClient.get(client);
  if (!mounts) perClient.set(client, (mounts = new Map()));
  let m = mounts.get(mount);
  if (!m) mounts.set(mount, (m = new MountRoles(client, mount)));
  return m;
}
