import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks(); // on SIGTERM: locks released, consumers drained, connections closed
  await app.listen(3000);
}

void bootstrap();
