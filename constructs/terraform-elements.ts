// The Terraform elements keyward's constructs synthesize: the `keyward` provider block (with its
// required_providers entry) and resources of the keyward provider whose attributes are computed at
// synth time from the constructs (so roles added after their backend still land in it).

import type { Construct } from 'constructs';
import { TerraformProvider, TerraformResource, type TerraformProviderType } from './cdk';
import { PROVIDER_SOURCE, packageVersion } from './launcher';

type Attributes = Record<string, unknown>;

/** The provider block `provider "keyward" { ... }`; attribute names are already snake_case. */
export class KeywardProviderBlock extends TerraformProvider {
  constructor(
    scope: Construct,
    id: string,
    private readonly produce: () => Attributes,
  ) {
    super(scope, id, {
      terraformResourceType: 'keyward',
      terraformGeneratorMetadata: { providerName: 'keyward', providerVersion: packageVersion() },
      terraformProviderSource: PROVIDER_SOURCE,
    });
  }

  protected override synthesizeAttributes(): Attributes {
    return this.produce();
  }

  // The base class keeps no alias (generated providers store it): `provider "keyward" { alias = … }`
  // and the `keyward.<alias>` references of the resources that use this block come from here.
  private aliasName?: string;
  override get alias(): string | undefined {
    return this.aliasName;
  }
  override set alias(value: string | undefined) {
    this.aliasName = value;
  }
}

/** A resource of the keyward provider ("keyward_cloud_auth_backend", …). */
export class KeywardResource extends TerraformResource {
  constructor(
    scope: Construct,
    id: string,
    type: string,
    private readonly produce: () => Attributes,
  ) {
    super(scope, id, {
      terraformResourceType: type,
      terraformGeneratorMetadata: { providerName: 'keyward', providerVersion: packageVersion() },
    });
  }

  protected override synthesizeAttributes(): Attributes {
    return this.produce();
  }
}

/** A resource of an aliased server uses that server's provider block (`provider = keyward.<alias>`). */
export function useServer(resource: KeywardResource, server: { alias?: string; _provider: TerraformProviderType }): void {
  if (server.alias) resource.provider = server._provider;
}
