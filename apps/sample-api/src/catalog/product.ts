export interface Product {
  id: number;
  name: string;
  category: string;
  priceCents: number;
  updatedAt: string;
}

export type ProductPatch = Partial<Pick<Product, 'name' | 'category' | 'priceCents'>>;

export const CATEGORIES = ['books', 'games', 'music', 'tools'] as const;

export const productTag = (id: number): string => `product:${id}`;
export const categoryTag = (category: string): string => `category:${category}`;
