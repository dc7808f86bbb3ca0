/** The HTTP platforms the benchmark apps run on. */
export const HTTP_ADAPTERS = ['express', 'fastify'] as const;
export type HttpAdapterName = (typeof HTTP_ADAPTERS)[number];

/** Whether a command-line word names a platform. */
export function isHttpAdapter(value: string | undefined): value is HttpAdapterName {
  return (HTTP_ADAPTERS as readonly string[]).includes(value ?? '');
}
