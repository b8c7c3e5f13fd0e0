// The RPCs of protocol 6 that keyward has no use for (data sources, ephemeral resources, functions,
// moved blocks across types). Terraform only calls them for types the schema does not declare, so
// each answers with a clear error diagnostic (or an empty list) instead of gRPC's UNIMPLEMENTED.

type Wire = Record<string, unknown>;

function unsupported(kind: string, typeName: unknown): Wire {
  return {
    diagnostics: [{ severity: 1, summary: `Unsupported ${kind}`, detail: `The keyward provider has no ${kind} "${String(typeName)}".` }],
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function unsupportedRpcs(): Record<string, (req: Record<string, any>) => Promise<Wire>> {
  return {
    ValidateDataResourceConfig: async (req) => unsupported('data source', req.type_name),
    ReadDataSource: async (req) => unsupported('data source', req.type_name),
    ValidateEphemeralResourceConfig: async (req) => unsupported('ephemeral resource', req.type_name),
    OpenEphemeralResource: async (req) => unsupported('ephemeral resource', req.type_name),
    RenewEphemeralResource: async (req) => unsupported('ephemeral resource', req.type_name),
    CloseEphemeralResource: async (req) => unsupported('ephemeral resource', req.type_name),
    MoveResourceState: async (req) => ({
      ...unsupported('resource move source', `${String(req.source_provider_address)} ${String(req.source_type_name)}`),
      target_private: Buffer.alloc(0),
    }),
    GetFunctions: async () => ({ functions: {}, diagnostics: [] }),
    CallFunction: async (req) => ({ error: { text: `The keyward provider has no function "${String(req.name)}".` } }),
  };
}
