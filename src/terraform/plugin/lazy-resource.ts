// A ResourceHandler whose schema is given up front and whose behaviour is loaded on the first RPC
// that needs it. Terraform starts a provider ~4 times per command and some starts only answer
// GetProviderSchema or configure (a no-op apply): those never load the validators (zod) or the
// plan/apply code.
import type { ResourceHandler } from './contract';

export function lazyResource<P>(typeName: string, schema: ResourceHandler<P>['schema'], load: () => ResourceHandler<P>): ResourceHandler<P> {
  let loaded: ResourceHandler<P> | undefined;
  const handler = (): ResourceHandler<P> => {
    if (!loaded) {
      loaded = load();
      // The two must describe one resource, or Terraform would validate against another schema.
      if (loaded.typeName !== typeName || loaded.schema !== schema)
        throw new Error(`lazyResource ${typeName}: the loaded handler is ${loaded.typeName} with another schema object`);
    }
    return loaded;
  };
  return {
    typeName,
    schema,
    validate: (config) => handler().validate?.(config) ?? [],
    read: (provider, state, priv) => handler().read(provider, state, priv),
    plan: (provider, req) => handler().plan(provider, req),
    apply: (provider, req) => handler().apply(provider, req),
    import: (provider, id) => handler().import(provider, id),
  };
}
