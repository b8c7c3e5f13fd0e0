// The go-plugin services a host expects beside tfplugin6.Provider: GRPCController (graceful shutdown),
// GRPCStdio (keyward writes its logs to stderr directly, so the stream carries nothing), GRPCBroker
// (no sub-plugins: the stream stays open and idle), and gRPC health ("plugin" is SERVING).
import type * as grpc from '@grpc/grpc-js';

const SERVING = 1;

export function controllerService(shutdown: () => void): grpc.UntypedServiceImplementation {
  return {
    Shutdown(_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) {
      callback(null, {});
      // Answer first: the host waits for the reply before it stops watching the process.
      setImmediate(shutdown);
    },
  };
}

export function stdioService(): grpc.UntypedServiceImplementation {
  return {
    StreamStdio(call: grpc.ServerWritableStream<unknown, unknown>) {
      call.end();
    },
  };
}

export function brokerService(): grpc.UntypedServiceImplementation {
  return {
    StartStream(call: grpc.ServerDuplexStream<unknown, unknown>) {
      call.on('data', () => undefined);
      call.on('end', () => call.end());
      call.on('error', () => undefined);
    },
  };
}

export function healthService(): grpc.UntypedServiceImplementation {
  return {
    Check(_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) {
      callback(null, { status: SERVING });
    },
    Watch(call: grpc.ServerWritableStream<unknown, unknown>) {
      call.write({ status: SERVING });
    },
  };
}
