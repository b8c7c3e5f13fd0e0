// The environment the e2e tests run cdktf in: CI mode, no colour, no version checks, pointed at one
// server. cdktf points Terraform at the machine-wide ~/.terraform.d/plugin-cache by default; runs of
// other checkouts (another keyward launcher under the same version, other bytes) replace its entry
// between init and plan ("cached package ... does not match"), and every stack installs keyward's
// provider from its own terraform.d, so the cache stays off (jest-env.ts sets it too).

export function cdktfEnv(server: { url: string; token: string }, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CHECKPOINT_DISABLE: '1',
    CDKTF_DISABLE_PLUGIN_CACHE_ENV: '1',
    CI: '1',
    FORCE_COLOR: '0',
    VAULT_ADDR: server.url,
    VAULT_TOKEN: server.token,
    ...extra,
  };
}
