// The keyward Terraform provider: its provider block, how it becomes a VaultClient (Vault's
// environment conventions, resolved as the CLI does: VAULT_ADDR is the fallback for the block's address
// and a different one is an error (the token reaches neither host), as is KEYWARD_SNAPSHOT_ADDR
// against its snapshot_address; its namespace wins over VAULT_NAMESPACE (a difference is a warning); KEYWARD_DIALECT overrides the block's dialect; the token comes from VAULT_TOKEN, then ~/.vault-token, never the configuration; request_timeout and max_retries default to
// VAULT_CLIENT_TIMEOUT and VAULT_MAX_RETRIES), its resources, and cancellation: StopProvider
// (Terraform's Ctrl-C) aborts every request in flight. The protocol layer (src/terraform/plugin) serves it.

import { SERVER_DIALECTS, type ServerDialect } from '../client/dialect/server-dialect';
import type { VaultClient } from '../client/vault-client';
import type { BlockSchema, Diagnostic, ObjectValue, ProviderDefinition, ResourceHandler } from './plugin/contract';
import { lazyResource } from './plugin/lazy-resource';
import { backendSchema } from './resources/cloud-auth-backend-schema';
import { roleResourceSchema } from './resources/cloud-auth-role-schema';
import { refusePlanOnlyMark, type KeywardProviderContext } from './resources/context';
import { exclusiveSnapshotConfigs } from './resources/exclusive-snapshot-configs';
import { snapshotAutoConfigSchema } from './resources/snapshot-auto-config-schema';
import { errorAt, hasUnknown, str } from './resources/values';
import { DiagnosticsError } from './plugin/contract';
import { parseMaxRetries, parseTimeoutMs } from '../client/time-bounds';
import { resolveAddress, resolveNamespace, resolveSnapshotAddress } from '../client/server-address';

export type { KeywardProviderContext } from './resources/context';

const providerSchema: BlockSchema = {
  version: 0,
  description:
    "Manages a keyward or Vault-compatible server's `cloud` auth method (mount, config, roles) and its automated snapshot configurations. The token is read from the `VAULT_TOKEN` environment variable, then from `~/.vault-token` (as Vault's own clients do), never from the configuration or the state. Several servers in one configuration: one provider block per server, with `alias`.",
  attributes: {
    address: {
      type: { kind: 'string' },
      optional: true,
      description:
        'Server URL, such as `https://vault.example.com:8200`. A different `VAULT_ADDR` is an error (the token is sent to neither); unset: `VAULT_ADDR`, else `http://127.0.0.1:8200`.',
    },
    namespace: {
      type: { kind: 'string' },
      optional: true,
      description: 'Namespace the resources are managed in (Vault Enterprise). Wins over `VAULT_NAMESPACE`, which is the fallback (a different one is a warning).',
    },
    cloud_plugin: {
      type: { kind: 'string' },
      optional: true,
      description:
        'The auth method type `keyward_cloud_auth_backend` mounts have on the server: on OpenBao the name the GCP plugin was registered under in its plugin catalog; `KEYWARD_CLOUD_PLUGIN` overrides it; default: `gcp` on Vault and OpenBao, `cloud` on the engine.',
    },
    snapshot_address: {
      type: { kind: 'string' },
      optional: true,
      description:
        'Where snapshot configs go instead of `address`: a `keyward snapshot-agent` serving automated snapshots for a server without them (Vault Community, OpenBao); `KEYWARD_SNAPSHOT_ADDR` is the fallback (a different one is an error, as for `address`).',
    },
    ca_cert_file: { type: { kind: 'string' }, optional: true, description: "PEM bundle of the certificate authorities to trust; unset: `VAULT_CACERT`, else the system's." },
    skip_tls_verify: {
      type: { kind: 'bool' },
      optional: true,
      description: "Do not verify the server's TLS certificate; unset: `VAULT_SKIP_VERIFY`, else false. For test servers only: anyone on the path could then read the token.",
    },
    dialect: {
      type: { kind: 'string' },
      optional: true,
      description: '`keyward` or `vault` (Vault Enterprise / OpenBao field names); `KEYWARD_DIALECT` overrides it; default: detected from `sys/health`.',
    },
    plan_only: {
      type: { kind: 'bool' },
      optional: true,
      description:
        'Set by synth in plan-only mode (`KEYWARD_PLAN_ONLY`): the configuration (and a plan saved from it) is for review only; configuring with it outside plan-only mode is refused, so such a plan is never applied.',
    },
    fingerprint_salt: { type: { kind: 'string' }, optional: true, description: 'Key of the secret fingerprints (HMAC-SHA256) kept in state; unset = an empty key (set one).' },
    request_timeout: {
      type: { kind: 'string' },
      optional: true,
      description:
        'How long one attempt of a request may wait (for the connection, the response headers, each read of the body): seconds or a duration such as `"10s"` or `"1m"`. Default: `VAULT_CLIENT_TIMEOUT`, else `10s`. With `max_retries`, a plan against a server that does not answer ends within `request_timeout × (max_retries + 1)`, about 30 s by default.',
    },
    max_retries: {
      type: { kind: 'number' },
      optional: true,
      description: "Retries after the first attempt of a request that got no response, a 429 or a 5xx. Default: `VAULT_MAX_RETRIES`, else 2 (as Vault's client).",
    },
  },
};

function validateProvider(config: ObjectValue): Diagnostic[] {
  const out: Diagnostic[] = [];
  const d = config.dialect;
  if (typeof d === 'string' && !(SERVER_DIALECTS as readonly string[]).includes(d)) out.push(errorAt(['dialect'], `dialect must be one of ${SERVER_DIALECTS.join(', ')}`));
  for (const [name, check] of [
    ['request_timeout', parseTimeoutMs],
    ['max_retries', parseMaxRetries],
  ] as const) {
    const v = config[name];
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    try {
      check(v, name);
    } catch (e) {
      out.push(errorAt([name], (e as Error).message));
    }
  }
  return out;
}

const CANCELLED = new Error('Terraform asked the provider to stop');

// The resources that validate with the manifest's zod schemas load on their first RPC; see
// lazy-resource.ts. require, not import(): see configure below.
const resources: ResourceHandler<KeywardProviderContext>[] = [
  lazyResource('keyward_cloud_auth_backend', backendSchema, () => (require('./resources/cloud-auth-backend') as typeof import('./resources/cloud-auth-backend')).cloudAuthBackend),
  lazyResource('keyward_cloud_auth_role', roleResourceSchema, () => (require('./resources/cloud-auth-role') as typeof import('./resources/cloud-auth-role')).cloudAuthRole),
  lazyResource(
    'keyward_snapshot_auto_config',
    snapshotAutoConfigSchema,
    () => (require('./resources/snapshot-auto-config') as typeof import('./resources/snapshot-auto-config')).snapshotAutoConfig,
  ),
  exclusiveSnapshotConfigs,
];

export interface KeywardProviderOptions {
  env?: NodeJS.ProcessEnv;
  /** Concurrent requests for role reads and writes. */
  parallelism?: number;
}

/** How long configure waits for the token's lookup before leaving a silent server to the requests that follow. */
const TOKEN_CHECK_WAIT_MS = 3_000;

export function keywardProvider(opts: KeywardProviderOptions = {}): ProviderDefinition<KeywardProviderContext> {
  const env = opts.env ?? process.env;
  const clients: VaultClient[] = [];
  const stop = new AbortController();
  return {
    schema: providerSchema,
    validate: (config) => [...validateProvider(config), ...addressWarnings(config, env)],
    async configure(config) {
      // Before anything: a saved plan made in plan-only mode is refused even when nothing changes.
      refusePlanOnlyMark(config, env);
      // 64 requests in flight: a server that makes each write durable before answering (keyward's
      // group fsync) took 4,000 role writes ~10% faster than with 32 here.
      const base = { env, parallelism: opts.parallelism ?? 64 };
      const salt = config.fingerprint_salt;
      const fingerprintSalt = hasUnknown(salt) ? null : (str(salt) ?? '');
      // Terraform may configure with values known only after apply: plan works without a client.
      if (hasUnknown(config)) return { ...base, fingerprintSalt };
      // Loaded here, not at start: Terraform starts the provider several times per command and
      // the schema and validate starts never reach the server (the HTTP stack is much of the start-up).
      // require, not import(): a dynamic import() would leave CommonJS (and tsx's loader) behind.
      const { settingsFromEnv } = require('../client/options') as typeof import('../client/options');
      // Validate already refused a conflicting VAULT_ADDR; this is for a configure without it.
      const conflicts = addressWarnings(config, env).filter((d) => d.severity === 'error');
      if (conflicts.length) throw new DiagnosticsError(conflicts);
      const settings = settingsFromEnv(
        {
          cloudPlugin: env.KEYWARD_CLOUD_PLUGIN || str(config.cloud_plugin),
          caFile: str(config.ca_cert_file),
          tlsSkipVerify: typeof config.skip_tls_verify === 'boolean' ? config.skip_tls_verify : undefined,
          timeoutMs: typeof config.request_timeout === 'string' ? parseTimeoutMs(config.request_timeout, 'request_timeout') : undefined,
          maxRetries: typeof config.max_retries === 'number' ? parseMaxRetries(config.max_retries, 'max_retries') : undefined,
        },
        env,
        // The block's dialect ranks as the manifest's (both come from KeywardServer's prop), so
        // KEYWARD_DIALECT overrides it here as it does for `keyward plan`.
        // So are its address, namespace and snapshot_address: VAULT_ADDR, VAULT_NAMESPACE and
        // KEYWARD_SNAPSHOT_ADDR never override them.
        {
          dialect: str(config.dialect) as ServerDialect | undefined,
          address: str(config.address),
          namespace: str(config.namespace),
          snapshotAddress: str(config.snapshot_address),
        },
      );
      if (!settings.token) throw new DiagnosticsError([missingToken(settings.address)]);
      const { VaultClient } = require('../client/vault-client') as typeof import('../client/vault-client');
      const client = new VaultClient({ ...settings, connections: base.parallelism, signal: stop.signal });
      clients.push(client);
      // One lookup of the token here (as terraform-provider-vault talks to the server in configure):
      // a refused token is one error, not one per resource during refresh and plan.
      // Only a prompt answer counts: a server that does not answer is left to the requests that
      // follow, whose timeouts, retries and Ctrl-C name it (waiting here too doubled a plan's time
      // against a stopped server and held configure past StopProvider).
      const { checkToken, TokenRefusedError } = require('../client/token-check') as typeof import('../client/token-check');
      const check = checkToken(client, settings.tokenSource).then(
        () => undefined,
        (e: unknown) => e,
      );
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), TOKEN_CHECK_WAIT_MS)));
      const refused = await Promise.race([check, waited]);
      clearTimeout(timer);
      if (refused instanceof TokenRefusedError) throw new DiagnosticsError([{ severity: 'error', summary: refused.summary, detail: refused.detail }]);
      if (refused !== undefined) throw refused;
      return { ...base, fingerprintSalt, client } as KeywardProviderContext;
    },
    resources,
    cancel() {
      stop.abort(CANCELLED);
    },
    async stop() {
      await Promise.all(clients.splice(0).map((c) => c.close()));
    },
  };
}

/** VAULT_TOKEN unset and no ~/.vault-token: said plainly at configure, before a request gets a bare 403. */
function missingToken(address: string): Diagnostic {
  return {
    severity: 'error',
    summary: 'VAULT_TOKEN is not set',
    detail: `The keyward provider reads its token from the VAULT_TOKEN environment variable, then from ~/.vault-token (never from the configuration or the state); neither has one. Set VAULT_TOKEN to a token for ${address} in the environment of terraform (or cdktf), or \`vault login\`, and run again.`,
  };
}

/**
 * A VAULT_ADDR or KEYWARD_SNAPSHOT_ADDR other than the block's address or snapshot_address is an
 * error (the token would reach a host the user did not mean: see resolveAddress); a different
 * VAULT_NAMESPACE is a warning (the block wins, as in terraform-provider-vault). Said at validate.
 */
function addressWarnings(config: ObjectValue, env: NodeJS.ProcessEnv): Diagnostic[] {
  const rules: [attribute: string, variable: string, resolve: (declared: string) => { refusal?: string; warning?: string }][] = [
    ['address', 'VAULT_ADDR', (d) => resolveAddress(undefined, d, env)],
    ['snapshot_address', 'KEYWARD_SNAPSHOT_ADDR', (d) => resolveSnapshotAddress(undefined, d, env)],
    ['namespace', 'VAULT_NAMESPACE', (d) => resolveNamespace(undefined, d, env)],
  ];
  return rules.flatMap(([attribute, variable, resolve]): Diagnostic[] => {
    const declared = str(config[attribute]);
    if (declared === undefined || hasUnknown(config[attribute])) return [];
    const { refusal, warning } = resolve(declared);
    if (refusal) return [{ severity: 'error', summary: `${variable} is not the provider's ${attribute}`, detail: refusal, attribute: [attribute] }];
    return warning ? [{ severity: 'warning', summary: `${variable} is not the provider's ${attribute}`, detail: warning, attribute: [attribute] }] : [];
  });
}
