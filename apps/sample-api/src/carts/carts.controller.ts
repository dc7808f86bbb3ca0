import { BadRequestException, Body, Controller, Get, Injectable, NotFoundException, Param, Put } from '@nestjs/common';
import { CachePut, type WriteBehindChange, WriteBehindService, WriteBehindWriter } from 'nestjs-redis-patterns';
import { type Cart, CartRepository } from './cart.repository';

/** Saves carts written behind: batches every 200 ms, whatever the request rate. */
@Injectable()
export class CartsWriter {
  constructor(private readonly carts: CartRepository) {}

  @WriteBehindWriter('carts')
  save(changes: ReadonlyArray<WriteBehindChange<Cart>>): Promise<void> {
    return this.carts.upsertMany(changes);
  }
}

/**
 * A write-heavy route: every cart change answers once the cart is in Redis (no database round trip on the request),
 * and the database gets the last version of each cart on the next flush.
 */
@Controller('carts')
export class CartsController {
  constructor(private readonly writeBehind: WriteBehindService) {}

  // On a handler the key function gets the request; it runs after the method, which has validated the id.
  @Put(':userId')
  @CachePut({ key: (request: CartRequest) => `cart:${request.params.userId}`, ttlMs: 3_600_000, writeBehind: 'carts' })
  async update(@Param('userId') userId: string, @Body() body: unknown): Promise<Cart> {
    return { userId: checkUserId(userId), items: validateItems(body) };
  }

  @Get(':userId')
  async find(@Param('userId') userId: string): Promise<Cart> {
    const cart = await this.writeBehind.get<Cart>(`cart:${checkUserId(userId)}`);
    if (!cart) throw new NotFoundException(`No cart for ${userId}`);
    return cart;
  }
}

/** What the key function reads of the request (Express and Fastify alike). */
interface CartRequest {
  readonly params: { readonly userId: string };
}

function checkUserId(userId: string): string {
  if (!/^[a-z0-9-]{1,64}$/.test(userId)) throw new BadRequestException('userId must be 1–64 lower-case letters, digits or dashes');
  return userId;
}

function validateItems(body: unknown): Cart['items'] {
  const items = (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || items.length > 100) throw new BadRequestException('items must be an array of at most 100 items');
  return items.map((item: unknown) => {
    const { productId, quantity } = (item ?? {}) as Record<string, unknown>;
    if (!Number.isInteger(productId) || !Number.isInteger(quantity) || (quantity as number) < 1 || (quantity as number) > 99)
      throw new BadRequestException('each item is { productId: integer, quantity: 1–99 }');
    return { productId: productId as number, quantity: quantity as number };
  });
}
