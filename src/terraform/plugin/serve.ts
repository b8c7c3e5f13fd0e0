// Runs a ProviderDefinition as a Terraform provider process: the go-plugin handshake, a gRPC server
// on a unix socket (mutual TLS when the host asks for it), the handshake line on stdout, then logs
// only on stderr until the host calls GRPCController.Shutdown or the process is signalled.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { generateServerCertificate } from './auto-mtls';
import type { ProviderDefinition } from './contract';
import { brokerService, controllerService, healthService, stdioService } from './go-plugin-services';
import { checkHandshakeEnv, handshakeLine } from './handshake';
import { loadProtos } from './protos';
import { providerService } from './provider-service';

export interface ServeOptions {
  env?: NodeJS.ProcessEnv;
  stdout?: NodeJS.WritableStream;
  log?: (line: string) => void;
  exit?: (code: number) => void;
  /** How often to check that the host process is still there (default 1 s). */
  parentPollMs?: number;
}

export async function serve(definition: ProviderDefinition, options: ServeOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const stdout = options.stdout ?? process.stdout;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const exit = options.exit ?? ((code: number) => process.exit(code));

  const check = checkHandshakeEnv(env);
  if (!check.ok) {
    process.stderr.write(check.message);
    exit(1);
    return;
  }
  // stdout belongs to the handshake: anything a library prints goes to stderr, where Terraform logs it.
  console.log = console.error;
  console.info = console.error;

  const protos = loadProtos();
  const dir = fs.mkdtempSync(path.join(env.PLUGIN_UNIX_SOCKET_DIR || os.tmpdir(), 'plugin'));
  const socketPath = path.join(dir, 'provider.sock');
  // No channelz: its per-call bookkeeping served no one (go-plugin never asks for it) and cost
  // about a fifth of the provider's CPU per RPC on a no-op plan of 300 roles.
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 256 * 1024 * 1024, 'grpc.max_send_message_length': 256 * 1024 * 1024, 'grpc.enable_channelz': 0 });

  let stopping = false;
  const shutdown = (code: number): void => {
    if (stopping) return;
    stopping = true;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      fs.rmSync(dir, { recursive: true, force: true });
      Promise.resolve(definition.stop?.())
        .catch((err: unknown) => log(`[WARN] stopping the provider: ${String(err)}`))
        .finally(() => exit(code));
    };
    // Let in-flight replies (the Shutdown reply itself) reach the host; idle streams get a second.
    const force = setTimeout(() => {
      server.forceShutdown();
      finish();
    }, 1000);
    server.tryShutdown(() => {
      clearTimeout(force);
      finish();
    });
  };

  server.addService(
    protos.provider.service,
    providerService(definition, { log, onStop: async () => (definition.cancel ? definition.cancel() : definition.stop?.()), timing: Boolean(env.TF_LOG) }),
  );
  server.addService(
    protos.controller.service,
    controllerService(() => shutdown(0)),
  );
  server.addService(protos.stdio.service, stdioService());
  server.addService(protos.broker.service, brokerService());
  server.addService(protos.health.service, healthService());

  let credentials = grpc.ServerCredentials.createInsecure();
  let cert: string | undefined;
  const clientCert = env.PLUGIN_CLIENT_CERT;
  if (clientCert && clientCert.trim() !== '') {
    const server = await generateServerCertificate();
    credentials = grpc.ServerCredentials.createSsl(Buffer.from(clientCert), [{ private_key: Buffer.from(server.keyPem), cert_chain: Buffer.from(server.certPem) }], true);
    cert = server.handshakeCert;
  }

  await new Promise<void>((resolve, reject) => server.bindAsync(`unix:${socketPath}`, credentials, (err) => (err ? reject(err) : resolve())));
  process.on('SIGTERM', () => shutdown(0));
  watchParent(() => {
    log('[WARN] the host process is gone (terraform was killed); stopping the provider');
    shutdown(0);
  }, options.parentPollMs);
  // Terraform forwards Ctrl-C to its plugins and then stops them itself (StopProvider, Shutdown).
  process.on('SIGINT', () => log('[DEBUG] interrupt received; waiting for the host to stop the provider'));
  stdout.write(handshakeLine(socketPath, cert));
}

/**
 * Calls `gone` once the parent (terraform) has died: the process is then re-parented, so its ppid
 * changes. A killed terraform (`terraform plan | head`, SIGPIPE) sends no Shutdown, and go-plugin
 * hands its plugins terraform's own stdin, so neither that RPC nor stdin's end can be waited on
 * (reading stdin would even take input meant for terraform).
 */
export function watchParent(gone: () => void, pollMs = 1000): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, pollMs);
  timer.unref();
}
