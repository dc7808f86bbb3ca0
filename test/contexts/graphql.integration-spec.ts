import type { INestApplication } from '@nestjs/common';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Args, Field, GraphQLModule, Int, ObjectType, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { Cacheable, RateLimit, type RateLimitOptions, RedisPatternsModule } from 'nestjs-redis-patterns';
import { connectionFor, uniquePrefix } from '../support/redis-env';

const MINUTE = 60_000;

@ObjectType()
class Quote {
  @Field()
  symbol: string;

  @Field(() => Int)
  load: number;
}

@Resolver(() => Quote)
class QuotesResolver {
  loads = 0;
  labels = 0;

  @Query(() => Quote)
  @Cacheable({ ttl: 60 })
  async quote(@Args('symbol') symbol: string): Promise<Quote> {
    this.loads++;
    return { symbol, load: this.loads };
  }

  @Query(() => String)
  @RateLimit({ algorithm: 'fixed-window', limit: 2, windowMs: MINUTE })
  ping(): string {
    return 'pong';
  }

  @Query(() => String)
  @RateLimit({
    algorithm: 'fixed-window',
    limit: 1,
    windowMs: MINUTE,
    key: (req: { headers: Record<string, string> }) => req.headers['x-user'] ?? 'anonymous',
  })
  me(): string {
    return 'me';
  }

  // Undecorated parameters: Nest passes the raw (parent, args, context, info); the decorators must not change
  // that. The app runs enhancers on field resolvers (fieldResolverEnhancers), so they are handlers like the query:
  // the default key is the parent and the arguments, and `key` gets (request, context).
  @ResolveField(() => String)
  @Cacheable({ ttl: 60 })
  @RateLimit({
    algorithm: 'fixed-window',
    limit: 3,
    windowMs: MINUTE,
    key: (req: { headers: Record<string, string> }) => req.headers['x-user'] ?? 'anonymous',
  })
  async label(parent: Quote, _args: unknown, context: { req?: unknown }): Promise<string> {
    this.labels++;
    return `${parent.symbol}:${context.req ? 'with-request' : 'no-request'}`;
  }
}

async function startGraphqlApp(rateLimit: RateLimitOptions = {}): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RedisPatternsModule.forRoot({ connection: connectionFor('standalone'), keyPrefix: uniquePrefix('gql'), rateLimit }),
      GraphQLModule.forRoot<ApolloDriverConfig>({
        driver: ApolloDriver,
        autoSchemaFile: true,
        context: ({ req, res }: { req: unknown; res: unknown }) => ({ req, res }),
        fieldResolverEnhancers: ['guards', 'interceptors', 'filters'],
      }),
    ],
    providers: [QuotesResolver],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return app;
}

describe('decorators in a GraphQL resolver (Apollo on Express, real HTTP)', () => {
  let app: INestApplication;
  const query = (target: INestApplication, text: string, headers: Record<string, string> = {}) => {
    const call = request(target.getHttpServer()).post('/graphql').timeout(3000).send({ query: text });
    for (const [name, value] of Object.entries(headers)) call.set(name, value);
    return call;
  };

  beforeAll(async () => {
    app = await startGraphqlApp();
  });

  afterAll(() => app?.close());

  it('caches a query per its arguments (two arguments never share an entry)', async () => {
    const resolver = app.get(QuotesResolver);
    const a = await query(app, '{ quote(symbol: "ACME") { symbol load } }').expect(200);
    const b = await query(app, '{ quote(symbol: "GLOBEX") { symbol load } }').expect(200);
    const again = await query(app, '{ quote(symbol: "ACME") { symbol load } }').expect(200);
    expect(a.body.data.quote).toEqual({ symbol: 'ACME', load: 1 });
    expect(b.body.data.quote).toEqual({ symbol: 'GLOBEX', load: 2 });
    expect(again.body.data.quote).toEqual(a.body.data.quote);
    expect(resolver.loads).toBe(2);
  });

  it('passes a field resolver its raw (parent, args, context), and caches per parent', async () => {
    const first = await query(app, '{ quote(symbol: "ACME") { label } }', { 'x-user': 'labels-1' }).expect(200);
    const other = await query(app, '{ quote(symbol: "GLOBEX") { label } }', { 'x-user': 'labels-1' }).expect(200);
    expect(first.body.data.quote.label).toBe('ACME:with-request');
    expect(other.body.data.quote.label).toBe('GLOBEX:with-request');
    await query(app, '{ quote(symbol: "ACME") { label } }', { 'x-user': 'labels-1' }).expect(200);
    expect(app.get(QuotesResolver).labels).toBe(2);
  });

  it('counts @RateLimit without key per client address; a denial is RATE_LIMITED with retryAfterMs and the HTTP headers', async () => {
    expect((await query(app, '{ ping }').expect(200)).body.data.ping).toBe('pong');
    await query(app, '{ ping }').expect(200);
    const denied = await query(app, '{ ping }');
    const [error] = denied.body.errors;
    expect(error.extensions).toMatchObject({ code: 'RATE_LIMITED', status: 429, error: 'RateLimitDeniedError' });
    expect(error.extensions.retryAfterMs).toBeGreaterThan(0);
    expect(error.message).toBe('Rate limit exceeded');
    expect(Number(denied.headers['retry-after'])).toBeGreaterThan(0);
    expect(denied.headers['ratelimit']).toMatch(/r=0/);
    expect(denied.headers['ratelimit-policy']).toMatch(/q=2;w=60/);
  });

  it('counts per key(request) when given one', async () => {
    expect((await query(app, '{ me }', { 'x-user': 'ada' })).body.data.me).toBe('me');
    expect((await query(app, '{ me }', { 'x-user': 'grace' })).body.data.me).toBe('me');
    const denied = await query(app, '{ me }', { 'x-user': 'ada' });
    expect(denied.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  it('applies a method @RateLimit on a field resolver that runs enhancers', async () => {
    const codes: string[] = [];
    for (const symbol of ['A1', 'A2', 'A3', 'A4']) {
      const response = await query(app, `{ quote(symbol: "${symbol}") { label } }`, { 'x-user': 'field-limit' });
      codes.push(response.body.errors?.[0]?.extensions?.code ?? 'ok');
    }
    expect(codes).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED']);
  });

  it('uses rateLimit.getTracker and generateKey from the module options', async () => {
    const trackers: string[] = [];
    const custom = await startGraphqlApp({
      getTracker: (context) => {
        const gql = context.getArgByIndex<{ req: { headers: Record<string, string> } }>(2);
        return gql.req.headers['x-tenant'] ?? 'none';
      },
      generateKey: (_context, tracker, name) => {
        trackers.push(tracker);
        return `${name}:tenant:${tracker}`;
      },
    });
    try {
      await query(custom, '{ ping }', { 'x-tenant': 't1' }).expect(200);
      await query(custom, '{ ping }', { 'x-tenant': 't1' }).expect(200);
      expect((await query(custom, '{ ping }', { 'x-tenant': 't1' })).body.errors[0].extensions.code).toBe('RATE_LIMITED');
      expect((await query(custom, '{ ping }', { 'x-tenant': 't2' })).body.data.ping).toBe('pong');
      expect(trackers).toEqual(['t1', 't1', 't1', 't2']);
    } finally {
      await custom.close();
    }
  });
});
