// Loads the .proto files shipped beside this module (the build copies them into dist/ beside the
// compiled JavaScript, so the same relative lookup works from sources and from an installed package).
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const OPTIONS: protoLoader.Options = { keepCase: true, longs: Number, enums: Number, defaults: true, oneofs: true, bytes: Buffer };

export interface Protos {
  provider: grpc.ServiceClientConstructor;
  controller: grpc.ServiceClientConstructor;
  stdio: grpc.ServiceClientConstructor;
  broker: grpc.ServiceClientConstructor;
  health: grpc.ServiceClientConstructor;
}

let loaded: Protos | undefined;

export function protoPath(name: string): string {
  return path.join(__dirname, name);
}

export function loadProtos(): Protos {
  if (loaded) return loaded;
  const defs = protoLoader.loadSync(['tfplugin6.proto', 'go-plugin.proto', 'health.proto'].map(protoPath), OPTIONS);
  const pkg = grpc.loadPackageDefinition(defs) as unknown as {
    tfplugin6: { Provider: grpc.ServiceClientConstructor };
    plugin: { GRPCController: grpc.ServiceClientConstructor; GRPCStdio: grpc.ServiceClientConstructor; GRPCBroker: grpc.ServiceClientConstructor };
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  loaded = {
    provider: pkg.tfplugin6.Provider,
    controller: pkg.plugin.GRPCController,
    stdio: pkg.plugin.GRPCStdio,
    broker: pkg.plugin.GRPCBroker,
    health: pkg.grpc.health.v1.Health,
  };
  return loaded;
}
