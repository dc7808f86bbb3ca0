// The code of docs/caching.md: cache-aside with `wrap`, the decorators on a service and a controller, and the module.
// test/docs/examples.integration-spec.ts serves this module over HTTP on Redis and checks what the page says.
import { Body, Controller, Get, Injectable, Module, NotFoundException, Param, ParseIntPipe, Put } from '@nestjs/common';
import { Cacheable, CacheEvict, CachePut, CacheService, RedisPatternsModule } from 'nestjs-redis-patterns';

export interface User {
  id: string;
  name: string;
}

export interface Product {
  id: number;
  name: string;
  category: string;
}

export type ProductPatch = Partial<Pick<Product, 'name' | 'category'>>;

/** Stands in for your database; `reads` counts the calls the cache did not spare it. */
@Injectable()
export class UserRepository {
  private readonly rows = new Map<string, User>([['42', { id: '42', name: 'Ada' }]]);
  reads = 0;

  async findById(id: string): Promise<User> {
    this.reads++;
    const row = this.rows.get(id);
    if (!row) throw new NotFoundException(`user ${id} does not exist`);
    return { ...row };
  }

  async update(id: string, patch: Partial<User>): Promise<void> {
    const row = await this.findById(id);
    this.rows.set(id, { ...row, ...patch, id });
  }
}

/** Stands in for your database; `reads` counts the calls the cache did not spare it. */
@Injectable()
export class ProductRepository {
  private readonly rows = new Map<number, Product>([[1, { id: 1, name: 'Lamp', category: 'lighting' }]]);
  reads = 0;

  async findById(id: number): Promise<Product> {
    this.reads++;
    const row = this.rows.get(id);
    if (!row) throw new NotFoundException(`product ${id} does not exist`);
    return { ...row };
  }

  async update(id: number, patch: ProductPatch): Promise<Product> {
    const row = { ...(await this.findById(id)), ...patch, id };
    this.rows.set(id, row);
    return { ...row };
  }
}

// #region cache-aside
@Injectable()
export class UsersService {
  constructor(
    private readonly cache: CacheService,
    private readonly users: UserRepository,
  ) {}

  find(id: string): Promise<User> {
    // One GET on a hit. On a miss, one loader call per key across concurrent callers and app instances.
    return this.cache.wrap(`user:${id}`, () => this.users.findById(id), { ttl: 300, tags: [`user:${id}`] });
  }

  async rename(id: string, name: string): Promise<void> {
    await this.users.update(id, { name }); // write the source of truth first…
    await this.cache.invalidateTags(`user:${id}`); // …then drop what was built from it
  }
}
// #endregion cache-aside

// #region decorators
@Injectable()
export class CatalogService {
  constructor(private readonly products: ProductRepository) {}

  @Cacheable({ key: (id: number) => `product:${id}`, ttl: 300, staleTtl: 60, tags: (id: number) => [`product:${id}`] })
  findProduct(id: number): Promise<Product> {
    return this.products.findById(id);
  }

  // Write-through: first drop everything tagged with the product (its cached HTTP answers too) and the lists of the
  // category it leaves; then the method runs and its result is stored under the key.
  @CacheEvict({
    tags: (id: number, patch: ProductPatch, previous: string) => [`product:${id}`, `category:${previous}`],
    beforeInvocation: true,
  })
  @CachePut({ key: (id: number) => `product:${id}`, ttl: 300, tags: (id: number) => [`product:${id}`] })
  saveProduct(id: number, patch: ProductPatch, _previous: string): Promise<Product> {
    return this.products.update(id, patch);
  }
}

/** What the handler's key functions read of the request: the id as ParseIntPipe reads it. */
interface IdRequest {
  params: { id?: string };
}

function idOf(request: IdRequest): number {
  return Number.parseInt(request.params.id ?? '', 10);
}

@Controller('products')
export class ProductsController {
  constructor(private readonly catalog: CatalogService) {}

  @Get(':id') // X-Cache: HIT | MISS | STALE
  // On a handler, key functions get the request (they run before pipes): the id as ParseIntPipe reads it.
  @Cacheable({ key: (req: IdRequest) => `http:product:${idOf(req)}`, ttl: 30, tags: (req: IdRequest) => [`product:${idOf(req)}`] })
  product(@Param('id', ParseIntPipe) id: number): Promise<Product> {
    return this.catalog.findProduct(id);
  }

  @Put(':id')
  async update(@Param('id', ParseIntPipe) id: number, @Body() patch: ProductPatch): Promise<Product> {
    const before = await this.catalog.findProduct(id);
    return this.catalog.saveProduct(id, patch, before.category);
  }
}
// #endregion decorators

// #region setup
@Module({
  imports: [
    RedisPatternsModule.forRoot({
      connection: process.env.REDIS_URL,
      cache: { defaultTtl: 60 }, // seconds; every option is listed below
    }),
  ],
  controllers: [ProductsController],
  providers: [CatalogService, ProductRepository, UsersService, UserRepository],
})
export class AppModule {}
// #endregion setup
