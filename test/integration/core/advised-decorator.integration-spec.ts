import {
  type CallHandler,
  Controller,
  type ExecutionContext,
  Get,
  type INestApplication,
  Injectable,
  Module,
  type NestInterceptor,
  Param,
  ParseIntPipe,
  UseInterceptors,
} from '@nestjs/common';
import { tap } from 'rxjs';
import { INTERCEPTORS_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { RedisPatternsNotBoundError } from '../../../libs/redis-patterns/src/errors/redis-patterns-not-bound.error';
import { HttpMappableDomainError } from '../../../libs/redis-patterns/src/errors/http-mappable';
import { RedisPatternsModule } from '../../../libs/redis-patterns/src/redis-patterns.module';
import { isAdvisedWrapper } from '../../../libs/redis-patterns/src/core/advice/advised-wrapper';
import { createAdvisedDecorator } from '../../../libs/redis-patterns/src/core/advice/create-advised-decorator';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../../../libs/redis-patterns/src/core/advice/method-advice.interface';

/** An application's own interceptor, to see where the decorators' behaviour runs among the interceptors. */
@Injectable()
class OrderInterceptor implements NestInterceptor {
  static readonly seen: string[] = [];

  intercept(_context: ExecutionContext, next: CallHandler) {
    OrderInterceptor.seen.push('app:before');
    return next.handle().pipe(tap(() => OrderInterceptor.seen.push('app:after')));
  }
}

/** A test-only advisor: records every call with its resolved arguments and wraps the result. */
@Injectable()
class TraceAdvisor implements MethodAdvisor<{ label: string }> {
  readonly calls: Array<{ label: string; method: string; args: unknown[]; isController: boolean; http: boolean }> = [];

  prepare(options: { label: string }, method: AdvisedMethod): MethodAdvice {
    if (!options.label) throw new Error('label is required');
    return async (invocation, proceed) => {
      OrderInterceptor.seen.push(`trace:${options.label}`);
      this.calls.push({
        label: options.label,
        method: method.methodName,
        args: [...invocation.args],
        isController: method.isController,
        http: !!invocation.http,
      });
      invocation.http?.setHeader('X-Trace', options.label);
      const result = await proceed();
      return typeof result === 'string' ? `${options.label}(${result})` : result;
    };
  }
}

const Trace = (label: string) => createAdvisedDecorator(TraceAdvisor, { label });

class ConflictError extends HttpMappableDomainError {
  toHttpResponse() {
    return { status: 409, headers: { 'Retry-After': '3' }, body: { statusCode: 409, message: 'busy' } };
  }
}

@Injectable()
class GreetingService {
  @Trace('outer')
  @Trace('inner')
  async greet(name: string): Promise<string> {
    return `hello ${name}`;
  }

  plain(): string {
    return 'untouched';
  }
}

@Controller('items')
class ItemsController {
  constructor(private readonly greetings: GreetingService) {}

  // @Get below the decorator: its metadata lands on the original method and must be copied to the wrapper.
  @Trace('route')
  @Get(':id')
  async item(@Param('id', ParseIntPipe) id: number): Promise<{ id: number; type: string; greeting: string }> {
    return { id, type: typeof id, greeting: await this.greetings.greet('item') };
  }

  @Get('count/:a')
  @Trace('count')
  async count(@Param('a') a: string): Promise<{ a: string; received: number }> {
    return { a, received: arguments.length };
  }

  @Get('ordered/now')
  @UseInterceptors(OrderInterceptor)
  @Trace('ordered')
  async ordered(): Promise<string> {
    OrderInterceptor.seen.push('handler');
    return 'done';
  }

  @Get('busy/now')
  @Trace('busy')
  async busy(): Promise<never> {
    throw new ConflictError('busy');
  }
}

@Injectable()
class BusyService {
  @Trace('service')
  async work(): Promise<never> {
    throw new ConflictError('busy');
  }
}

@Controller('plain')
class PlainController {
  constructor(private readonly busy: BusyService) {}

  @Get()
  async plain(): Promise<never> {
    return this.busy.work();
  }
}

@Module({
  providers: [GreetingService, BusyService, TraceAdvisor],
  controllers: [ItemsController, PlainController],
  exports: [TraceAdvisor],
})
class FeatureModule {}

describe('createAdvisedDecorator', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      // lazyConnect-free: the module's connection is never used by this spec, so a short startup wait suffices.
      imports: [RedisPatternsModule.forRoot({ connection: process.env.REDIS_URL_STANDALONE, connectTimeoutMs: 2000 }), FeatureModule],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
  });

  afterAll(() => app?.close());

  it('runs the advice around a provider method, topmost decorator outermost', async () => {
    const advisor = app.get(TraceAdvisor);
    advisor.calls.length = 0;
    await expect(app.get(GreetingService).greet('ada')).resolves.toBe('outer(inner(hello ada))');
    expect(advisor.calls.map((c) => c.label)).toEqual(['outer', 'inner']);
    expect(advisor.calls[0]).toMatchObject({ method: 'greet', args: ['ada'], isController: false });
    expect(app.get(GreetingService).plain()).toBe('untouched');
  });

  it('runs it around a controller handler, before its pipes, with (request, context), keeping route metadata', async () => {
    const advisor = app.get(TraceAdvisor);
    advisor.calls.length = 0;
    const response = await request(app.getHttpServer()).get('/items/42').expect(200);
    expect(response.headers['x-trace']).toBe('route');
    // The method still gets what the pipes resolved; the advice saw the request and Nest's context.
    expect(response.body).toEqual({ id: 42, type: 'number', greeting: 'outer(inner(hello item))' });
    expect(advisor.calls[0]).toMatchObject({ label: 'route', isController: true, http: true });
    const [requestArg, contextArg] = advisor.calls[0].args as [{ params: { id: string } }, ExecutionContext];
    expect(requestArg.params.id).toBe('42');
    expect(contextArg.getHandler()).toBe(ItemsController.prototype.item);
    // The provider call made inside the handler goes through the provider's wrapper, without the HTTP call.
    expect(advisor.calls.slice(1).map((c) => [c.label, c.http])).toEqual([
      ['outer', false],
      ['inner', false],
    ]);
    expect(Reflect.getMetadata(PATH_METADATA, ItemsController.prototype.item)).toBe(':id');
  });

  it('passes the method exactly the arguments it would get undecorated, and runs the behaviour once', async () => {
    const advisor = app.get(TraceAdvisor);
    advisor.calls.length = 0;
    const response = await request(app.getHttpServer()).get('/items/count/x').expect(200);
    expect(response.body).toEqual({ a: 'x', received: 1 });
    expect(advisor.calls.map((c) => c.label)).toEqual(['count']);
  });

  it("runs as one of the handler's interceptors, in the order Nest gives them", async () => {
    OrderInterceptor.seen.length = 0;
    const advisor = app.get(TraceAdvisor);
    advisor.calls.length = 0;
    await request(app.getHttpServer()).get('/items/ordered/now').expect(200);
    // @UseInterceptors written above the decorator: Nest runs the one declared first (the decorator's) outside it.
    expect(OrderInterceptor.seen).toEqual(['trace:ordered', 'app:before', 'handler', 'app:after']);
    expect(advisor.calls.map((c) => c.label)).toEqual(['ordered']);
  });

  it("gives a controller its own methods back, with the decorators' metadata: only a provider keeps a wrapper", () => {
    for (const name of ['item', 'count', 'ordered'] as const) {
      const handler = ItemsController.prototype[name];
      expect(isAdvisedWrapper(handler)).toBe(false);
      // The route (written above or below the decorator) and the decorator's interceptor are on the method itself.
      expect(Reflect.getOwnMetadata(PATH_METADATA, handler)).toBeDefined();
      expect(Reflect.getOwnMetadata(INTERCEPTORS_METADATA, handler)).toHaveLength(name === 'ordered' ? 2 : 1);
    }
    expect(isAdvisedWrapper(GreetingService.prototype.greet)).toBe(true);
  });

  it('leaves a controller method called directly as written: its behaviour is for the calls Nest makes', async () => {
    const advisor = app.get(TraceAdvisor);
    advisor.calls.length = 0;
    await expect(app.get(ItemsController).count('y')).resolves.toEqual({ a: 'y', received: 1 });
    expect(advisor.calls).toEqual([]);
  });

  it('maps an HttpMappableError thrown by a handler to its status and headers', async () => {
    const response = await request(app.getHttpServer()).get('/items/busy/now').expect(409);
    expect(response.headers['retry-after']).toBe('3');
    expect(response.body.message).toBe('busy');
  });

  it('maps it too when a decorated provider throws it under an undecorated handler', async () => {
    const response = await request(app.getHttpServer()).get('/plain').expect(409);
    expect(response.headers['retry-after']).toBe('3');
  });
});

describe('without RedisPatternsModule', () => {
  it('fails application startup with a clear error naming the method, instead of running methods unadvised', async () => {
    const compiled = Test.createTestingModule({ imports: [FeatureModule] }).compile();
    await expect(compiled).rejects.toThrow(RedisPatternsNotBoundError);
    await expect(compiled).rejects.toThrow(
      /\.(greet|item|count|ordered|busy|work) uses a redis-patterns decorator, but RedisPatternsModule is not imported/,
    );
  });

  it('refuses to run a decorated method on an instance no module prepared', async () => {
    const service = new GreetingService();
    await expect(service.greet('x')).rejects.toThrow(RedisPatternsNotBoundError);
  });
});
