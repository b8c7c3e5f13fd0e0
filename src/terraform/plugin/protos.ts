// The gRPC services of the plugin protocol, from the .proto files shipped beside this module.
// Terraform starts the provider several times per command, so start-up matters: `npm run build`
// compiles the .proto files to protobufjs JSON (protos.json beside the compiled module; see
// scripts/copy-protos.js) and the provider loads that with protobufjs' light build, which skips the
// .proto parser and the descriptor tables @grpc/proto-loader builds (about 150 ms per start).
// Run from sources (no protos.json), the .proto files are parsed; both give the same services.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type * as protobuf from 'protobufjs';

export const PROTO_FILES = ['tfplugin6.proto', 'go-plugin.proto', 'health.proto'];
export const PROTOS_JSON = 'protos.json';

/** How decoded messages look (as @grpc/proto-loader's keepCase/longs/enums/defaults/oneofs/bytes). */
const TO_OBJECT: protobuf.IConversionOptions = { longs: Number, enums: Number, defaults: true, oneofs: true, bytes: Buffer };

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

/** The .proto files parsed (build time, and the fallback when run from sources). */
export function parseProtos(): protobuf.Root {
  const { Root } = require('protobufjs') as typeof protobuf; // the full build: it has the .proto parser
  return new Root().loadSync(PROTO_FILES.map(protoPath), { keepCase: true });
}

function root(): protobuf.Root {
  const json = protoPath(PROTOS_JSON);
  if (!fs.existsSync(json)) return parseProtos();
  const { Root } = require('protobufjs/light') as typeof protobuf;
  return Root.fromJSON(JSON.parse(fs.readFileSync(json, 'utf8')) as protobuf.INamespace);
}

function message(type: protobuf.Type) {
  return {
    serialize: (value: object): Buffer => Buffer.from(type.encode(type.fromObject(value)).finish()),
    deserialize: (bytes: Buffer): object => type.toObject(type.decode(bytes), TO_OBJECT),
  };
}

/** A service as grpc-js wants it: one path and codec per method (unary and streaming alike). */
function service(r: protobuf.Root, name: string): grpc.ServiceClientConstructor {
  const svc = r.lookupService(name);
  const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const m of svc.methodsArray) {
    m.resolve();
    const req = message(m.resolvedRequestType!);
    const res = message(m.resolvedResponseType!);
    definition[m.name] = {
      path: `/${name}/${m.name}`,
      requestStream: !!m.requestStream,
      responseStream: !!m.responseStream,
      requestSerialize: req.serialize,
      requestDeserialize: req.deserialize,
      responseSerialize: res.serialize,
      responseDeserialize: res.deserialize,
    };
  }
  return grpc.makeGenericClientConstructor(definition, name);
}

export function loadProtos(): Protos {
  if (loaded) return loaded;
  const r = root();
  loaded = {
    provider: service(r, 'tfplugin6.Provider'),
    controller: service(r, 'plugin.GRPCController'),
    stdio: service(r, 'plugin.GRPCStdio'),
    broker: service(r, 'plugin.GRPCBroker'),
    health: service(r, 'grpc.health.v1.Health'),
  };
  return loaded;
}
