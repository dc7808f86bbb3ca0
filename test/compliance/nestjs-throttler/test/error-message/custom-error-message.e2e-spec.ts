// Adapted from nestjs/throttler (MIT, see LICENSE in test/compliance/nestjs-throttler) test/error-message/custom-error-message.e2e-spec.ts: listens on 127.0.0.1, so the tracker in the message is 127.0.0.1.
import { type INestApplication, type Type } from '@nestjs/common';
import { type AbstractHttpAdapter } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { request, spec } from 'pactum';
import { CustomErrorMessageThrottlerModule } from './app.module';

jest.setTimeout(10000);

describe.each`
  adapter           | name
  ${ExpressAdapter} | ${'express'}
  ${FastifyAdapter} | ${'fastify'}
`('Function-Overrides-Throttler Named Usage - $name', ({ adapter }: { adapter: Type<AbstractHttpAdapter> }) => {
  let app: INestApplication;
  beforeAll(async () => {
    const modRef = await Test.createTestingModule({
      imports: [CustomErrorMessageThrottlerModule],
    }).compile();
    app = modRef.createNestApplication(new adapter());
    // IPv4 loopback: upstream listens on every interface and expects ::1, which a machine without IPv6 lacks.
    await app.listen(0, '127.0.0.1');
    request.setBaseUrl(await app.getUrl());
  });
  afterAll(async () => {
    await app.close();
  });

  describe.each`
    route        | errorMessage
    ${'default'} | ${'CustomErrorMessageController-defaultRoute 127.0.0.1 3'}
    ${'other'}   | ${'CustomErrorMessageController-otherRoute 127.0.0.1 3'}
  `('Custom-error-message Route - $route', ({ route, errorMessage }: { route: string; errorMessage: string }) => {
    it('should receive a custom exception', async () => {
      const limit = 2;
      for (let i = 0; i < limit; i++) {
        await spec().get(`/${route}`).expectStatus(200);
      }

      await spec().get(`/${route}`).expectStatus(429).expectBodyContains(errorMessage);
    });
  });
});
