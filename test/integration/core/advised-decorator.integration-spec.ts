import { Controller, Get, type INestApplication, Injectable, Module, Param, ParseIntPipe } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { RedisPatternsNotBoundError } from '../../../libs/redis-patterns/src/errors/redis-patterns-not-bound.error';
import { HttpMappableDomainError } from '../../../libs/redis-patterns/src/errors/http-mappable';
import { RedisPatternsModule } from '../../../libs/redis-patterns/src/redis-patterns.module';
import { createAdvisedDecorator } from '../../../libs/redis-patterns/src/core/advice/create-advised-decorator';
import type { AdvisedMethod, MethodAdvice, MethodAdvisor } from '../../../libs/redis-patterns/src/core/advice/method-advice.interface';

/** A test-only advisor: records every call with its resolved arguments and wraps the result. */
@Injectable()
class TraceAdvisor implements MethodAdvisor<{ label: string }> {
  readonly calls: Array<{ label: string; method: string; args: unknown[]; isController: boolean; http: boolean }> = [];

  prepare(options: { label: string }, method: AdvisedMethod): MethodAdvice {
    if (!options.label) throw new Error('label is required');
    return async (invocation, proceed) => {
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

  it('runs it around a controller handler with the arguments the pipes resolved, keeping route metadata', async () => {
    const advisor = app.get(TraceAdvisor);
    advisor.calls.length = 0;
    const response = await request(app.getHttpServer()).get('/items/42').expect(200);
    expect(response.headers['x-trace']).toBe('route');
    expect(response.body).toEqual({ id: 42, type: 'number', greeting: 'outer(inner(hello item))' });
    expect(advisor.calls[0]).toMatchObject({ label: 'route', args: [42], isController: true });
    // The provider call made inside the handler is advised too, but without the HTTP call.
    expect(advisor.calls.slice(1).map((c) => c.isController)).toEqual([false, false]);
    expect(Reflect.getMetadata(PATH_METADATA, ItemsController.prototype.item)).toBe(':id');
  });

  it('hands the HTTP call to the advice through a hidden parameter the method never sees', async () => {
    const advisor = app.get(TraceAdvisor);
    advisor.calls.length = 0;
    const response = await request(app.getHttpServer()).get('/items/count/x').expect(200);
    expect(response.body).toEqual({ a: 'x', received: 1 });
    expect(response.headers['x-trace']).toBe('count');
    expect(advisor.calls).toEqual([{ label: 'count', method: 'count', args: ['x'], isController: true, http: true }]);
    // Called directly (not by the router), a handler is advised without an HTTP call and gets its arguments as given.
    advisor.calls.length = 0;
    await expect(app.get(ItemsController).count('y')).resolves.toEqual({ a: 'y', received: 1 });
    expect(advisor.calls).toEqual([{ label: 'count', method: 'count', args: ['y'], isController: true, http: false }]);
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
  it('fails application startup with a clear error instead of running methods unadvised', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [FeatureModule] }).compile();
    const app = moduleRef.createNestApplication();
    await expect(app.init()).rejects.toThrow(RedisPatternsNotBoundError);
    await expect(app.init()).rejects.toThrow(/RedisPatternsModule is not imported/);
    await app.close();
  });

  it('refuses to run a decorated method on an instance no module prepared', async () => {
    const service = new GreetingService();
    await expect(service.greet('x')).rejects.toThrow(RedisPatternsNotBoundError);
  });
});
