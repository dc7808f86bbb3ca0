// `node -r ./scripts/register-ts.js bench/tools/traced-calls.ts`: the library files one call runs through, measured
// with V8's precise coverage (function call counts) rather than read off the code. An Express app with a
// `@Cacheable` handler, a route calling a `@Cacheable` provider method and a `@RateLimit` handler on a private
// redis-server is warmed up; then, for each call, the
// counters are reset, one request is sent, and every library file with a function that ran is listed, with its
// folder. Startup work (option compilation, binding) is out of it by construction: only the request's own calls
// count. docs/architecture.md quotes the committed output, bench/results/traced-calls.txt.
import 'reflect-metadata';
import { Session } from 'node:inspector/promises';
import { relative, sep } from 'node:path';
import { Controller, Get, Injectable, Module, Param } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Cacheable, RateLimit, RedisPatternsModule } from '../../libs/redis-patterns/src';
import { PrivateRedis } from '../lib/private-redis';

const LIBRARY = `${sep}libs${sep}redis-patterns${sep}src${sep}`;
const WARM_UP = 50;
const QUIET_MS = 200;

@Injectable()
class Catalog {
  @Cacheable({ key: (id: string) => `product:${id}`, ttl: 60 })
  async find(id: string) {
    return { id, name: `product ${id}` };
  }
}

@Controller()
class TracedController {
  constructor(private readonly catalog: Catalog) {}

  // Undecorated: the request reaches the library only through the provider's @Cacheable.
  @Get('products/:id')
  product(@Param('id') id: string) {
    return this.catalog.find(id);
  }

  @Get('items/:id')
  @Cacheable({ key: (request: { params: { id: string } }) => `item:${request.params.id}`, ttl: 60 })
  item(@Param('id') id: string) {
    return { id, name: `item ${id}` };
  }

  @Get('limited')
  @RateLimit({ algorithm: 'fixed-window', limit: 1_000_000, windowMs: 60_000 })
  limited() {
    return { ok: true };
  }
}

interface FunctionCoverage {
  ranges: Array<{ count: number }>;
}
interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

/** Library files (relative to its src/) with at least one function that ran since the last reset. */
async function filesRun(session: Session, request: () => Promise<unknown>): Promise<string[]> {
  // What a previous request left running after its response finishes first. The window then spans this request
  // alone, from its send to its response: a periodic timer (the frozen-server watchdog) rarely falls in it.
  await quiet();
  await session.post('Profiler.takePreciseCoverage');
  await request();
  const { result } = (await session.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] };
  const files = new Set<string>();
  for (const script of result) {
    const path = script.url.startsWith('file://') ? decodeURIComponent(script.url.slice(7)) : script.url;
    const at = path.indexOf(LIBRARY);
    if (at < 0 || !script.functions.some((f) => f.ranges[0]?.count > 0)) continue;
    files.add(
      relative(path.slice(0, at + LIBRARY.length), path)
        .split(sep)
        .join('/'),
    );
  }
  return [...files].sort();
}

const quiet = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS));

function report(title: string, files: string[]): string {
  const folders = new Set(files.map((file) => file.split('/').slice(0, -1).join('/') || '.'));
  return [`## ${title}: ${files.length} files in ${folders.size} folders`, ...files.map((file) => `  ${file}`), ''].join('\n');
}

async function main(): Promise<void> {
  const redis = await PrivateRedis.start();
  @Module({
    imports: [RedisPatternsModule.forRoot({ connection: redis.url, keyPrefix: 'traced' })],
    controllers: [TracedController],
    providers: [Catalog],
  })
  class TracedModule {}
  const app = await NestFactory.create(TracedModule, { logger: ['error', 'warn'] });
  const session = new Session();
  session.connect();
  try {
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    let next = 0;
    const get = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
      return response;
    };
    for (let i = 0; i < WARM_UP; i++) await Promise.all([get(`/items/${next}`), get(`/products/${next++}`), get('/limited')]);
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    const miss = await filesRun(session, async () => {
      const response = await get(`/items/${next++}`);
      if (response.headers.get('x-cache') !== 'MISS') throw new Error(`expected a miss, got X-Cache ${response.headers.get('x-cache')}`);
    });
    const providerMiss = await filesRun(session, () => get(`/products/${next++}`));
    const allowed = await filesRun(session, () => get('/limited'));
    process.stdout.write(
      [
        '# bench/tools/traced-calls.ts: library files with a function that ran during one request (V8 precise coverage),',
        '# after a warm-up; Express, standalone Redis.',
        '',
        report('@Cacheable on a provider method, a miss that fills the entry', providerMiss),
        report('@Cacheable on a controller, a miss that fills the entry', miss),
        report('@RateLimit on an HTTP handler, an allowed request', allowed),
      ].join('\n'),
    );
  } finally {
    session.disconnect();
    await app.close();
    await redis.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
