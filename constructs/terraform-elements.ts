// The Terraform elements keyward's constructs synthesize: the `keyward` provider block (with its
// required_providers entry) and resources of the keyward provider whose attributes are computed at
// synth time from the constructs (so roles added after their backend still land in it).

import type { Construct } from 'constructs';
import { TerraformProvider, TerraformResource } from './cdk';
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
