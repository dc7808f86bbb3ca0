import type { AbstractHttpAdapter } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';

/** The HTTP platforms the sample API runs on: Express (Nest's default) and Fastify. */
export const SAMPLE_ADAPTERS = ['express', 'fastify'] as const;
export type SampleAdapterName = (typeof SAMPLE_ADAPTERS)[number];

/**
 * The adapter named by `SAMPLE_ADAPTER` (default `express`): `undefined` for Express, which Nest creates itself.
 * An unknown name fails startup, naming the variable.
 */
export function httpAdapterFor(name: string | undefined = process.env.SAMPLE_ADAPTER): AbstractHttpAdapter | undefined {
  const chosen = name === undefined || name === '' ? 'express' : name;
  if (!(SAMPLE_ADAPTERS as readonly string[]).includes(chosen)) {
    throw new Error(`SAMPLE_ADAPTER must be one of ${SAMPLE_ADAPTERS.join(', ')}; received "${chosen}".`);
  }
  return chosen === 'fastify' ? new FastifyAdapter() : undefined;
}
