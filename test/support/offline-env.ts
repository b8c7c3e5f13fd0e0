// The environment of a run that must not reach a network: no version checks, no Terraform CLI
// configuration, and any proxy-honouring download meets a closed loopback port.

export function offlineEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CHECKPOINT_DISABLE: '1',
    TF_IN_AUTOMATION: '1',
    TF_CLI_CONFIG_FILE: '/dev/null',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    ...extra,
  };
}
