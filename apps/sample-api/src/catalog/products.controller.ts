import { BadRequestException, Body, Controller, Get, Param, ParseIntPipe, Put, Query } from '@nestjs/common';
import { Cacheable } from 'nestjs-redis-patterns';
import { CatalogService } from './catalog.service';
import { CATEGORIES, categoryTag, type Product, type ProductPatch } from './product';

@Controller('products')
export class ProductsController {
  constructor(private readonly catalog: CatalogService) {}

  /**
   * `X-Cache: HIT|MISS|STALE` tells where the answer came from. On a handler the key functions get the request (the
   * interceptor runs before pipes): the id is read as the pipe will parse it, so `/products/01` shares the entry and
   * the tag of `/products/1`, which a product's update invalidates.
   */
  @Get(':id')
  @Cacheable({
    key: (request: ProductRequest) => `http:product:${productId(request)}`,
    ttl: 30,
    tags: (request: ProductRequest) => [`product:${productId(request)}`],
  })
  async product(@Param('id', ParseIntPipe) id: number): Promise<Product> {
    const product = await this.catalog.findProduct(id);
    return product;
  }

  /** A cached list, invalidated through its category tag when a product of the category changes. */
  @Get()
  @Cacheable({
    key: (request: ProductRequest) => `http:products:${String(request.query.category)}`,
    ttl: 30,
    tags: (request: ProductRequest) => [categoryTag(String(request.query.category))],
  })
  async list(@Query('category') category: string): Promise<Product[]> {
    if (!CATEGORIES.includes(category as (typeof CATEGORIES)[number])) {
      throw new BadRequestException(`category must be one of ${CATEGORIES.join(', ')}`);
    }
    return this.catalog.listCategory(category);
  }

  @Put(':id')
  async update(@Param('id', ParseIntPipe) id: number, @Body() body: ProductPatch): Promise<Product> {
    const patch = validatePatch(body);
    const before = await this.catalog.findProduct(id);
    return this.catalog.saveProduct(id, patch, before.category);
  }
}

/** What the key functions read of a request (Express and Fastify alike). */
interface ProductRequest {
  readonly params: Record<string, string | undefined>;
  readonly query: Record<string, unknown>;
}

/** The product id as ParseIntPipe reads it (a non-number keys nothing the pipe lets through). */
function productId(request: ProductRequest): number {
  return Number.parseInt(request.params.id ?? '', 10);
}

function validatePatch(body: unknown): ProductPatch {
  if (typeof body !== 'object' || body === null) throw new BadRequestException('expected a JSON object');
  const { name, category, priceCents, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw new BadRequestException(`unknown fields: ${Object.keys(rest).join(', ')}`);
  if (name !== undefined && (typeof name !== 'string' || name.length === 0 || name.length > 200))
    throw new BadRequestException('name must be a string of 1–200 characters');
  if (category !== undefined && !CATEGORIES.includes(category as (typeof CATEGORIES)[number]))
    throw new BadRequestException(`category must be one of ${CATEGORIES.join(', ')}`);
  if (priceCents !== undefined && !(Number.isInteger(priceCents) && (priceCents as number) >= 0))
    throw new BadRequestException('priceCents must be a non-negative integer');
  return { name, category, priceCents } as ProductPatch;
}
