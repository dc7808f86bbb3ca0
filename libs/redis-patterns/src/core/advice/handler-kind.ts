import { CONTROLLER_WATERMARK, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';

/**
 * How Nest calls a handler: an HTTP route (Express or Fastify), a microservice message pattern (`rpc`, with a
 * reply), a microservice event pattern (`rpc-event`, no reply), a gRPC method, a WebSocket gateway message, or a
 * GraphQL resolver (query, mutation, subscription or field).
 */
export type HandlerKind = 'http' | 'rpc' | 'rpc-event' | 'grpc' | 'ws' | 'graphql';

// The metadata keys of @nestjs/microservices, @nestjs/websockets and @nestjs/graphql, by value: those packages are
// optional peers, so the library must not import them (handler-kind.spec.ts checks the values against the real
// decorators).
const PATTERN_METADATA = 'microservices:pattern';
const PATTERN_HANDLER_METADATA = 'microservices:handler_type';
const TRANSPORT_METADATA = 'microservices:transport';
const EVENT_HANDLER = 2;
const GRPC_TRANSPORT = 4;
const MESSAGE_MAPPING_METADATA = 'websockets:message_mapping';
const RESOLVER_TYPE_METADATA = 'graphql:resolver_type';
const RESOLVER_PROPERTY_METADATA = 'graphql:resolve_property';

/**
 * The kinds of handler Nest makes of `method` of `classRef`, read from the metadata its decorators leave
 * (`@Get`, `@MessagePattern`, `@EventPattern`, `@GrpcMethod`, `@SubscribeMessage`, `@Query`, `@ResolveField` …).
 * Empty for a method Nest never calls itself (a provider method, or a controller's helper).
 */
export function handlerKindsOf(classRef: Function, method: Function): HandlerKind[] {
  const kinds: HandlerKind[] = [];
  if (
    Reflect.getMetadata(CONTROLLER_WATERMARK, classRef) === true &&
    Reflect.getMetadata(PATH_METADATA, method) !== undefined &&
    Reflect.getMetadata(METHOD_METADATA, method) !== undefined
  ) {
    kinds.push('http');
  }
  if (Reflect.getMetadata(PATTERN_METADATA, method) !== undefined) {
    if (Reflect.getMetadata(TRANSPORT_METADATA, method) === GRPC_TRANSPORT) kinds.push('grpc');
    else kinds.push(Reflect.getMetadata(PATTERN_HANDLER_METADATA, method) === EVENT_HANDLER ? 'rpc-event' : 'rpc');
  }
  if (Reflect.getMetadata(MESSAGE_MAPPING_METADATA, method) === true) kinds.push('ws');
  if (
    Reflect.getMetadata(RESOLVER_TYPE_METADATA, method) !== undefined ||
    Reflect.getMetadata(RESOLVER_PROPERTY_METADATA, method) === true
  ) {
    kinds.push('graphql');
  }
  return kinds;
}
