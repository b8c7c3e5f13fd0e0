// The tfplugin6.Provider service: decodes Terraform's DynamicValues with each resource's schema,
// calls the ProviderDefinition's handlers, and encodes their results. Every failure is returned as
// diagnostics; a response that carries state keeps the prior state on failure so Terraform never
// forgets an object because a call went wrong.
import type * as grpc from '@grpc/grpc-js';
import { isDeepStrictEqual } from 'node:util';
import type { Diagnostic, ObjectValue, ProviderDefinition, ResourceHandler, Value } from './contract';
import { withEmptyBlocks } from './block-members';
import { blockType } from './cty-type';
import { diagnosticToWire, errorDiagnostics, hasError, pathToWire } from './diagnostics-wire';
import { decodeJsonState } from './json-state';
import { decodeValue, encodeValue } from './msgpack-codec';
import { RecentDecodes } from './recent-decodes';
import { providerSchemas } from './schema-wire';
import { unsupportedRpcs } from './unsupported-rpcs';
import { withoutWriteOnly, writeOnlyPathsSet } from './write-only';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- protobufjs messages as plain objects, untyped
type Handler = (req: Wire) => Promise<Wire>;

interface DynamicValue {
  msgpack?: Buffer;
  json?: Buffer;
}

export interface ProviderServiceOptions {
  log: (line: string) => void;
  onStop?: () => Promise<void>;
  /** Log each RPC's duration (Terraform keeps provider stderr in its TF_LOG output). */
  timing?: boolean;
}

/**
 * get_provider_schema_optional: no RPC here needs GetProviderSchema first, so Terraform asks for
 * the schema once per command and its later starts of the provider (validate, plan, apply walks)
 * use the copy it keeps, instead of each building, encoding and decoding the whole schema again.
 */
const SERVER_CAPABILITIES = { plan_destroy: true, get_provider_schema_optional: true, move_resource_state: false };

export function providerService(definition: ProviderDefinition, options: ProviderServiceOptions): grpc.UntypedServiceImplementation {
  const resources = new Map<string, ResourceHandler>(definition.resources.map((r) => [r.typeName, r]));
  const providerType = blockType(definition.schema);
  let configured: unknown;
  let isConfigured = false;

  const resource = (typeName: string): ResourceHandler => {
    const handler = resources.get(typeName);
    if (!handler) throw new Error(`the provider has no resource type "${typeName}"`);
    return handler;
  };
  const providerValue = (): unknown => {
    if (!isConfigured) throw new Error('the provider was used before ConfigureProvider');
    return configured;
  };
  // Each resource's cty type, built once (every decode and encode of every RPC needs it).
  const types = new Map(definition.resources.map((r) => [r, blockType(r.schema)]));
  const typeOf = (handler: ResourceHandler) => types.get(handler) ?? blockType(handler.schema);
  const recent = new RecentDecodes();
  const decode = (dv: DynamicValue | null | undefined, handler: ResourceHandler): ObjectValue | null => {
    const bytes = dv?.msgpack;
    if (!bytes || bytes.length === 0) return decodeDynamic(dv, typeOf(handler)) as ObjectValue | null;
    return recent.decode(handler.typeName, bytes, () => decodeValue(bytes, typeOf(handler))) as ObjectValue | null;
  };
  const encode = (value: Value, handler: ResourceHandler): DynamicValue => {
    const bytes = encodeValue(value, typeOf(handler)); // a fresh array: wrapped, not copied
    return { msgpack: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
  };
  const diags = (list: readonly Diagnostic[] | undefined): Wire[] => (list ?? []).map(diagnosticToWire);
  const failed = (err: unknown): Wire[] => {
    const list = errorDiagnostics(err);
    options.log(`[ERROR] ${list.map((d) => d.summary).join('; ')}`);
    return diags(list);
  };
  const schemaResponse = (): Wire => ({
    ...providerSchemas(definition),
    data_source_schemas: {},
    functions: {},
    ephemeral_resource_schemas: {},
    diagnostics: [],
    server_capabilities: SERVER_CAPABILITIES,
  });

  const handlers: Record<string, Handler> = {
    ...unsupportedRpcs(),
    async GetMetadata() {
      return {
        server_capabilities: SERVER_CAPABILITIES,
        diagnostics: [],
        data_sources: [],
        resources: definition.resources.map((r) => ({ type_name: r.typeName })),
        functions: [],
        ephemeral_resources: [],
      };
    },
    async GetProviderSchema() {
      try {
        return schemaResponse();
      } catch (err) {
        return { diagnostics: failed(err) };
      }
    },
    async ValidateProviderConfig(req) {
      try {
        const config = decodeDynamic(req.config, providerType) as ObjectValue;
        return { diagnostics: diags(definition.validate?.(config)) };
      } catch (err) {
        return { diagnostics: failed(err) };
      }
    },
    async ValidateResourceConfig(req) {
      try {
        const handler = resource(req.type_name);
        const config = decode(req.config, handler) ?? {};
        const found: Diagnostic[] = [];
        if (!req.client_capabilities?.write_only_attributes_allowed) {
          for (const path of writeOnlyPathsSet(config, handler.schema)) {
            found.push({
              severity: 'error',
              summary: 'Write-only attribute not supported',
              detail: `${path.filter((s) => typeof s === 'string').join('.')} is write-only and needs Terraform 1.11 or later.`,
              attribute: path,
            });
          }
        }
        found.push(...(handler.validate?.(config) ?? []));
        return { diagnostics: diags(found) };
      } catch (err) {
        return { diagnostics: failed(err) };
      }
    },
    async UpgradeResourceState(req) {
      try {
        const handler = resource(req.type_name);
        const raw: Buffer | undefined = req.raw_state?.json;
        if (!raw || raw.length === 0) throw new Error(`${req.type_name}: state in the legacy flatmap format cannot be upgraded`);
        const value = handler.upgrade ? handler.upgrade(Number(req.version), JSON.parse(raw.toString('utf8'))) : (decodeJsonState(raw, typeOf(handler)) as ObjectValue);
        return { upgraded_state: encode(withoutWriteOnly(withEmptyBlocks(value, handler.schema), handler.schema), handler), diagnostics: [] };
      } catch (err) {
        return { diagnostics: failed(err) };
      }
    },
    async ConfigureProvider(req) {
      try {
        const config = decodeDynamic(req.config, providerType) as ObjectValue;
        configured = await definition.configure(config);
        isConfigured = true;
        return { diagnostics: [] };
      } catch (err) {
        return { diagnostics: failed(err) };
      }
    },
    async ReadResource(req) {
      const handler = resources.get(req.type_name);
      try {
        const h = resource(req.type_name);
        const state = decode(req.current_state, h);
        if (state === null) return { new_state: req.current_state, diagnostics: [] };
        const result = await h.read(providerValue(), state, bytesOrUndefined(req.private));
        const next = withoutWriteOnly(result.state, h.schema);
        // Nothing changed (every no-op refresh): Terraform's own bytes go back, not a new encoding
        // of the same value (at 1,000 nested roles that encoding was a third of the refresh).
        const out: Wire = { new_state: unchanged(next, state) ? req.current_state : encode(next, h), diagnostics: diags(result.diagnostics) };
        out.private = result.private ? Buffer.from(result.private) : req.private;
        return out;
      } catch (err) {
        return { new_state: handler ? req.current_state : undefined, private: req.private, diagnostics: failed(err) };
      }
    },
    async PlanResourceChange(req) {
      try {
        const h = resource(req.type_name);
        let proposed: ObjectValue | null | undefined;
        const prior = decode(req.prior_state, h);
        const result = await h.plan(providerValue(), {
          prior,
          // Decoded on first use only: keyward's resources plan from the config and the prior, and
          // at 10,000 roles each decode of the whole value costs hundreds of milliseconds.
          get proposed() {
            return (proposed ??= decode(req.proposed_new_state, h));
          },
          config: decode(req.config, h),
          priorPrivate: bytesOrUndefined(req.prior_private),
        });
        const out: Wire = { diagnostics: diags(result.diagnostics) };
        if (!hasError(result.diagnostics ?? [])) {
          const planned = withoutWriteOnly(result.planned, h.schema);
          // A plan that keeps the object as it is answers with the prior state's bytes (see ReadResource).
          out.planned_state = unchanged(planned, prior) ? req.prior_state : encode(planned, h);
          out.requires_replace = (result.requiresReplace ?? []).map(pathToWire);
          out.planned_private = result.plannedPrivate ? Buffer.from(result.plannedPrivate) : Buffer.alloc(0);
        }
        return out;
      } catch (err) {
        return { diagnostics: failed(err) };
      }
    },
    async ApplyResourceChange(req) {
      const handler = resources.get(req.type_name);
      try {
        const h = resource(req.type_name);
        const result = await h.apply(providerValue(), {
          prior: decode(req.prior_state, h),
          planned: decode(req.planned_state, h),
          config: decode(req.config, h),
          plannedPrivate: bytesOrUndefined(req.planned_private),
        });
        return {
          new_state: encode(withoutWriteOnly(result.state, h.schema), h),
          private: result.private ? Buffer.from(result.private) : Buffer.alloc(0),
          diagnostics: diags(result.diagnostics),
        };
      } catch (err) {
        // The prior state stands: a failed create leaves nothing, a failed update or delete keeps the object.
        return { new_state: handler ? req.prior_state : undefined, diagnostics: failed(err) };
      }
    },
    async ImportResourceState(req) {
      try {
        const h = resource(req.type_name);
        const state = await h.import(providerValue(), req.id);
        return {
          imported_resources: [{ type_name: req.type_name, state: encode(withoutWriteOnly(state, h.schema), h), private: Buffer.alloc(0) }],
          diagnostics: [],
        };
      } catch (err) {
        return { imported_resources: [], diagnostics: failed(err) };
      }
    },
    async StopProvider() {
      try {
        await options.onStop?.();
        return { Error: '' };
      } catch (err) {
        return { Error: err instanceof Error ? err.message : String(err) };
      }
    },
  };

  return Object.fromEntries(
    Object.entries(handlers).map(([name, fn]) => [
      name,
      (call: grpc.ServerUnaryCall<Wire, Wire>, callback: grpc.sendUnaryData<Wire>) => {
        const started = performance.now();
        fn(call.request).then(
          (response) => {
            if (options.timing) options.log(`[TRACE] ${name} handled in ${(performance.now() - started).toFixed(1)} ms`);
            callback(null, response);
          },
          (err: unknown) => callback(null, { diagnostics: failed(err) }),
        );
      },
    ]),
  );
}

/** The handler's answer is the value Terraform sent (an object, deeply equal: no change to encode). */
function unchanged(next: Value, sent: ObjectValue | null): boolean {
  return next !== null && sent !== null && isDeepStrictEqual(next, sent);
}

/** A DynamicValue as a value of `type`: msgpack when present, else JSON; an empty one is null. */
export function decodeDynamic(dv: DynamicValue | null | undefined, type: Parameters<typeof decodeValue>[1]): Value {
  if (!dv) return null;
  if (dv.msgpack && dv.msgpack.length > 0) return decodeValue(dv.msgpack, type);
  if (dv.json && dv.json.length > 0) return decodeJsonState(dv.json, type);
  return null;
}

function bytesOrUndefined(bytes: Buffer | undefined | null): Uint8Array | undefined {
  return bytes && bytes.length > 0 ? bytes : undefined;
}
