import { Controller, Get, Post } from '@nestjs/common';
import { Args, Mutation, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { EventPattern, GrpcMethod, MessagePattern } from '@nestjs/microservices';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { handlerKindsOf } from './handler-kind';

// The library reads these packages' metadata by key value, without importing them: this spec holds the values
// to the real decorators, so a rename in a new major fails here.
@Controller('things')
class ThingsController {
  @Get() list() {}
  @Post() create() {}
  @MessagePattern('things.get') get(_data: unknown) {}
  @EventPattern('things.changed') changed(_data: unknown) {}
  @GrpcMethod('Things', 'Find') find(_data: unknown) {}
  helper() {}
}

@WebSocketGateway()
class ThingsGateway {
  @SubscribeMessage('things') onThings() {}
}

@Resolver()
class ThingsResolver {
  @Query(() => String) thing(@Args('id') _id: string) {}
  @Mutation(() => String) rename() {}
  @ResolveField(() => String) label() {}
}

class PlainService {
  @Get() notARoute() {}
}

describe('handlerKindsOf', () => {
  it.each([
    [ThingsController, 'list', ['http']],
    [ThingsController, 'create', ['http']],
    [ThingsController, 'get', ['rpc']],
    [ThingsController, 'changed', ['rpc-event']],
    [ThingsController, 'find', ['grpc']],
    [ThingsController, 'helper', []],
    [ThingsGateway, 'onThings', ['ws']],
    [ThingsResolver, 'thing', ['graphql']],
    [ThingsResolver, 'rename', ['graphql']],
    [ThingsResolver, 'label', ['graphql']],
    // Route metadata counts only on a controller class.
    [PlainService, 'notARoute', []],
  ] as const)('%p.%s is %j', (classRef, method, kinds) => {
    expect(handlerKindsOf(classRef, (classRef.prototype as unknown as Record<string, Function>)[method])).toEqual(kinds);
  });
});
