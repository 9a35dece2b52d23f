/**
 * gRPC wiring by reflection: each Temporal service's methods are registered from the SDK's protobuf root,
 * requests decoded and responses encoded with it. A method without a handler answers UNIMPLEMENTED and
 * is logged; a handler's RpcError becomes its gRPC status; anything else is INTERNAL and logged.
 */
import * as grpc from '@grpc/grpc-js';
import { reflection } from '../proto.js';
import type { ReflectedType } from '../proto.js';
import { RpcError } from '../errors.js';
import type { LogLevel } from '../log-level.js';

export interface CallContext {
  /** Registers a listener for the caller going away (cancelled or deadline passed). */
  onCancel(listener: () => void): void;
}

// Handlers receive decoded protobufjs messages; each service module types its own requests.
export type Handler = (request: any, call: CallContext) => unknown;
export type ServiceHandlers = Record<string, Handler>;

/** The request type of a generated message class: RequestOf<typeof v1.StartWorkflowExecutionRequest>. */
export type RequestOf<T> = T extends { create(properties?: infer P): unknown } ? NonNullable<P> : never;

export interface RpcObserver {
  log(line: string, level: LogLevel): void;
  /** Called once per RPC, with its method name. */
  onCall(method: string): void;
  /** Called after every handled RPC (time skipping re-checks whether it may jump). */
  afterCall(): void;
  /** Checks what the call changed (the history limits); an error it returns is the call's answer instead. */
  settle?(): RpcError | undefined;
  /**
   * With a durable store: resolves once what the server changed so far is committed. Every answer, success
   * or error, waits for it, so no client is told of a change (or shown state) that is not on disk.
   */
  beforeAnswer?(): Promise<void>;
  unimplemented: Map<string, number>;
}

export function addService(
  server: grpc.Server,
  serviceName: string,
  handlers: ServiceHandlers,
  observer: RpcObserver,
): void {
  const service = reflection.lookupService(serviceName).resolveAll();
  const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [method, reflected] of Object.entries(service.methods)) {
    const requestType = reflected.resolvedRequestType as ReflectedType;
    const responseType = reflected.resolvedResponseType as ReflectedType;
    definition[method] = {
      path: `/${serviceName}/${method}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (message: object) => Buffer.from(requestType.encode(message).finish()),
      // Decoded from a copy of its own: the decoded payloads are views into the buffer they came from, and history
      // keeps them for the run's life; grpc-js hands small messages over in its shared 8 KiB pool slabs, which one
      // kept view would pin (a parked run pinned about 30 KiB of slabs this way).
      requestDeserialize: (bytes: Buffer) => requestType.decode(new Uint8Array(bytes)),
      responseSerialize: (message: object) =>
        Buffer.from(responseType.encode(responseType.fromObject(message)).finish()),
      responseDeserialize: (bytes: Buffer) => responseType.decode(bytes),
    };
    const handler = handlers[method];
    implementation[method] = (call: grpc.ServerUnaryCall<object, object>, callback: grpc.sendUnaryData<object>) => {
      observer.onCall(method);
      if (!handler) {
        observer.unimplemented.set(method, (observer.unimplemented.get(method) ?? 0) + 1);
        observer.log(`UNIMPLEMENTED: ${serviceName}/${method}`, 'warn');
        callback({
          code: grpc.status.UNIMPLEMENTED,
          details: `unknown method ${method}: not implemented by the mve-orders devserver`,
        });
        return;
      }
      const fail = (error: unknown) => {
        if (error instanceof RpcError) {
          callback({ code: error.code, details: error.message });
        } else {
          observer.log(
            `${method} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
            'warn',
          );
          callback({
            code: grpc.status.INTERNAL,
            details: `internal error in ${method}: ${error instanceof Error ? error.message : String(error)}`,
          });
        }
      };
      const context: CallContext = {
        onCancel: (listener) => {
          call.on('cancelled', listener);
        },
      };
      const answer = (send: () => void) => {
        if (!observer.beforeAnswer) return send();
        observer.beforeAnswer().then(send, (error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          observer.log(`${method}: the change could not be saved, answered UNAVAILABLE: ${reason}`, 'warn');
          callback({
            code: grpc.status.UNAVAILABLE,
            details: `devserver: the change could not be saved (${reason}); try again`,
          });
        });
      };
      let result: Promise<unknown>;
      try {
        // the handler runs now, synchronously up to its first await: its changes belong to this call
        result = Promise.resolve(handler(call.request, context));
      } catch (error) {
        result = Promise.reject(error);
      }
      // what the call changed may take a run past its history limits: the change is undone, the call refused
      const refused = observer.settle?.();
      if (refused)
        result = result.then(
          () => Promise.reject(refused),
          () => Promise.reject(refused),
        );
      result.then(
        (response) => answer(() => callback(null, (response ?? {}) as object)),
        (error: unknown) => answer(() => fail(error)),
      );
      observer.afterCall();
    };
  }
  server.addService(definition as grpc.ServiceDefinition, implementation);
}
