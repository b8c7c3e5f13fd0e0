// The go-plugin handshake, from the plugin's side: refuse to run outside a plugin host, agree on the
// app protocol version, and the single line on stdout that tells the host where to connect.

export const MAGIC_COOKIE_KEY = 'TF_PLUGIN_MAGIC_COOKIE';
export const MAGIC_COOKIE_VALUE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';
export const PROTOCOL_VERSION = 6;
const CORE_PROTOCOL_VERSION = 1;

/** go-plugin's own wording, so users who run the binary by hand see what they would with any provider. */
export const NOT_A_PLUGIN_MESSAGE =
  'This binary is a plugin. These are not meant to be executed directly.\n' +
  'Please execute the program that consumes these plugins, which will\n' +
  'load any plugins automatically\n';

export type HandshakeCheck = { ok: true } | { ok: false; message: string };

export function checkHandshakeEnv(env: NodeJS.ProcessEnv): HandshakeCheck {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) return { ok: false, message: NOT_A_PLUGIN_MESSAGE };
  const offered = env.PLUGIN_PROTOCOL_VERSIONS;
  if (offered !== undefined && offered.trim() !== '') {
    const versions = offered.split(',').map((v) => Number(v.trim()));
    if (!versions.includes(PROTOCOL_VERSION)) {
      return {
        ok: false,
        message: `terraform-provider-keyward speaks plugin protocol ${PROTOCOL_VERSION}; the host offered ${offered} (Terraform >= 1.0 is required)\n`,
      };
    }
  }
  return { ok: true };
}

export function handshakeLine(socketPath: string, cert: string | undefined): string {
  const parts = [CORE_PROTOCOL_VERSION, PROTOCOL_VERSION, 'unix', socketPath, 'grpc'];
  return `${parts.join('|')}${cert === undefined ? '' : `|${cert}`}\n`;
}
