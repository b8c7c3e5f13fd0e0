// PLACEHOLDER until the resources branch lands: the keyward provider's own configuration block (per
// docs/terraform-provider.md) with no resources yet, so the provider binary runs end to end.
import type { ObjectValue, ProviderDefinition } from './plugin/contract';

const optionalString = (description: string) => ({ type: { kind: 'string' as const }, optional: true, description });

export function keywardProvider(): ProviderDefinition<ObjectValue> {
  return {
    schema: {
      version: 0,
      attributes: {
        address: optionalString('Server URL; VAULT_ADDR overrides it.'),
        namespace: optionalString('Namespace; VAULT_NAMESPACE overrides it.'),
        ca_cert_file: optionalString('PEM bundle to trust.'),
        skip_tls_verify: { type: { kind: 'bool' }, optional: true, description: 'Skip TLS verification.' },
        dialect: optionalString('keyward or vault; default: detected from sys/health.'),
        fingerprint_salt: optionalString('Key of the secret fingerprints (HMAC-SHA256).'),
      },
    },
    configure: async (config) => config,
    resources: [],
  };
}
