// The seam between the plugin-protocol layer (src/terraform/plugin: handshake, gRPC, msgpack) and
// keyward's resources (src/terraform/resources): schemas, values and handlers in plain TypeScript,
// so resources are tested in-process and the protocol layer knows nothing of keyward.

/** A cty type, as Terraform's type system sees it (JSON form on the wire: "string", ["list","string"], …). */
export type ValueType =
  | { kind: 'string' }
  | { kind: 'number' }
  | { kind: 'bool' }
  | { kind: 'dynamic' }
  | { kind: 'list' | 'set' | 'map'; element: ValueType }
  | { kind: 'object'; attributes: Record<string, ValueType> };

/** Nested attributes (protocol 6, the framework's SingleNestedAttribute / MapNestedAttribute …). */
export interface NestedSchema {
  nesting: 'single' | 'list' | 'set' | 'map';
  attributes: Record<string, AttributeSchema>;
}

export interface AttributeSchema {
  /** Exactly one of `type` and `nested`. */
  type?: ValueType;
  nested?: NestedSchema;
  /** CommonMark (sent as description_kind MARKDOWN); the generated reference docs print it as is. */
  description?: string;
  required?: boolean;
  optional?: boolean;
  computed?: boolean;
  sensitive?: boolean;
  /** Terraform >= 1.11: the value is in config only, never in plan or state (always null there). */
  writeOnly?: boolean;
  deprecated?: boolean;
}

/**
 * A nested block type (tfplugin6 Schema.NestedBlock): HCL `roles "web" { … }`. Terraform evaluates
 * blocks far faster than nested attributes (a 10,000-entry map-nested attribute costs it ~50 s per
 * graph walk). By cty's convention a list, set or map block's value is never null: absent = empty.
 * Blocks cannot be computed (as in terraform-plugin-framework); attributes inside them can.
 */
export interface NestedBlockSchema {
  nesting: 'single' | 'list' | 'set' | 'map';
  attributes: Record<string, AttributeSchema>;
  blocks?: Record<string, NestedBlockSchema>;
  description?: string;
  /** 0 = no limit (single blocks: 1 makes the block required). */
  minItems?: number;
  maxItems?: number;
}

export interface BlockSchema {
  version: number;
  description?: string;
  attributes: Record<string, AttributeSchema>;
  blocks?: Record<string, NestedBlockSchema>;
}

/** The unknown value ("known after apply"): a single sentinel, compared by identity. */
export const UNKNOWN: unique symbol = Symbol('cty.unknown');
export type Unknown = typeof UNKNOWN;

/**
 * A decoded cty value: null, UNKNOWN, string, number, boolean, arrays (list/set), plain objects
 * (map/object). Object values always carry every attribute of their type (null when unset).
 */
export type Value = null | Unknown | string | number | boolean | Value[] | { [key: string]: Value };
export type ObjectValue = { [key: string]: Value };

/** Attribute path steps: attribute name, map key ({ key }) or list index ({ index }). */
export type PathStep = string | { key: string } | { index: number };
export type AttributePath = PathStep[];

export interface Diagnostic {
  severity: 'error' | 'warning';
  summary: string;
  detail?: string;
  attribute?: AttributePath;
}

/** Thrown by handlers to return diagnostics instead of a result; anything else thrown becomes one error diagnostic. */
export class DiagnosticsError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => d.summary).join('; '));
  }
}

export interface PlanRequest {
  /** null on create. */
  prior: ObjectValue | null;
  /** Terraform's proposed new state (config merged with prior computed values); null on destroy. */
  proposed: ObjectValue | null;
  /** The configuration as written (write-only values are only here); null on destroy. */
  config: ObjectValue | null;
  /** Opaque bytes the resource kept in state beside the value (never shown to users). */
  priorPrivate?: Uint8Array;
}

export interface PlanResult {
  planned: ObjectValue | null;
  /** Attributes whose change forces a replace of the whole Terraform resource. */
  requiresReplace?: AttributePath[];
  plannedPrivate?: Uint8Array;
  diagnostics?: Diagnostic[];
}

export interface ApplyRequest {
  prior: ObjectValue | null;
  /** null on destroy. */
  planned: ObjectValue | null;
  config: ObjectValue | null;
  plannedPrivate?: Uint8Array;
}

export interface ApplyResult {
  /** null after a destroy. Must match `planned` wherever planned was known. */
  state: ObjectValue | null;
  private?: Uint8Array;
  diagnostics?: Diagnostic[];
}

export interface ReadResult {
  /** null: the object is gone (Terraform plans a create). */
  state: ObjectValue | null;
  private?: Uint8Array;
  diagnostics?: Diagnostic[];
}

/** One managed resource type ("keyward_cloud_auth_backend", …). */
export interface ResourceHandler<P = unknown> {
  readonly typeName: string;
  readonly schema: BlockSchema;
  validate?(config: ObjectValue): Diagnostic[];
  read(provider: P, state: ObjectValue, priv?: Uint8Array): Promise<ReadResult>;
  plan(provider: P, req: PlanRequest): Promise<PlanResult>;
  apply(provider: P, req: ApplyRequest): Promise<ApplyResult>;
  /** `terraform import` by id: the imported state (Terraform then calls read). */
  import(provider: P, id: string): Promise<ObjectValue>;
  /** State written by an older schema version (or the same one) → current value. */
  upgrade?(version: number, json: unknown): ObjectValue;
}

/** A whole provider: its own config block, how to configure it, and its resources. */
export interface ProviderDefinition<P = unknown> {
  readonly schema: BlockSchema;
  validate?(config: ObjectValue): Diagnostic[];
  /** Called once per provider process after ConfigureProvider; the result is passed to every handler. */
  configure(config: ObjectValue): Promise<P>;
  readonly resources: readonly ResourceHandler<P>[];
  /** Called on StopProvider (Terraform's Ctrl-C): end work in flight at once; the process keeps serving until Shutdown. */
  cancel?(): void;
  /** Called on GRPCController.Shutdown (and on StopProvider when there is no cancel). */
  stop?(): Promise<void>;
}
