import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { clearKeys } from 'nestjs-redis-patterns/testing';
import { connectionFor } from '../support/redis-env';

// The README's quick start, as its files are (docs/examples/readme/app.module.ts), against a real Redis over a real
// HTTP server: the curl lines the README shows are these requests.
describe('README quick start (standalone Redis)', () => {
  let app: INestApplication;
  let server: ReturnType<INestApplication['getHttpServer']>;

  beforeAll(async () => {
    const url = connectionFor('standalone');
    if (typeof url !== 'string') throw new Error('the standalone topology has no URL');
    // The example reads REDIS_URL when its module is loaded: set it first, then load the module.
    process.env.REDIS_URL = url;
    const { AppModule } = require('../../docs/examples/readme/app.module') as typeof import('../../docs/examples/readme/app.module');
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    await app.listen(0, '127.0.0.1');
    server = app.getHttpServer();
    await clearKeys(app); // the example's fixed keyPrefix: nothing left from an earlier run on this server
  }, 20_000);

  afterAll(async () => {
    if (app) {
      await clearKeys(app);
      await app.close();
    }
    delete process.env.REDIS_URL;
  });

  it('answers MISS then HIT, then 429 with Retry-After past 5 requests a minute', async () => {
    const first = await request(server).get('/products/1').timeout(5_000);
    expect(first.status).toBe(200);
    expect(first.headers['x-cache']).toBe('MISS');
    expect(first.body).toEqual({ id: '1', name: 'Product 1' });

    const second = await request(server).get('/products/1').timeout(5_000);
    expect(second.status).toBe(200);
    expect(second.headers['x-cache']).toBe('HIT');
    expect(second.body).toEqual(first.body);

    // The README's loop: four more requests answer 200 200 200 429.
    const codes: number[] = [];
    let denied: request.Response | undefined;
    for (let i = 0; i < 4; i++) {
      const response = await request(server).get('/products/1').timeout(5_000);
      codes.push(response.status);
      denied = response;
    }
    expect(codes).toEqual([200, 200, 200, 429]);
    expect(Number(denied!.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(denied!.headers['retry-after'])).toBeLessThanOrEqual(60);
  }, 15_000);
});
