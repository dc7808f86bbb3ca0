import { METHOD_ADVICE } from '../../core/advice/advice.constants';
import { CacheEvict } from './cache-evict.decorator';
import { CachePut } from './cache-put.decorator';
import { Cacheable } from './cacheable.decorator';

// Compile-time checks (tsc runs over the specs): `unless` is typed against the decorated method's result.
class Typed {
  @Cacheable({
    key: (id: string) => `user:${id}`,
    tags: (id: string) => [`user:${id}`],
    unless: (user: { id: string } | null) => user === null,
  })
  async find(id: string, _verbose?: boolean): Promise<{ id: string } | null> {
    return { id };
  }

  // @ts-expect-error `unless` takes the method's result, a string here
  @Cacheable({ unless: (user: { id: string }) => user.id === '' })
  async wrongResult(id: string): Promise<string> {
    return id;
  }

  @CachePut({ key: (user: { id: string }) => `user:${user.id}` })
  async save(user: { id: string }): Promise<{ id: string }> {
    return user;
  }

  @CacheEvict({ keys: (id: string) => [`user:${id}`], tags: ['users'] })
  async remove(_id: string): Promise<void> {}
}

describe('cache decorators', () => {
  it('record their advice on the method and keep it callable by name', () => {
    for (const name of ['find', 'save', 'remove'] as const) {
      const method = Typed.prototype[name];
      expect(typeof method).toBe('function');
      expect(method.name).toBe(name);
      expect(Reflect.getMetadata(METHOD_ADVICE, method)).toHaveLength(1);
    }
  });
});
