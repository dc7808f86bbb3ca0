/** Metadata key of the advice declarations on a decorated method (an array, outermost decorator first). */
export const METHOD_ADVICE = 'redis-patterns:method-advice';
/** The undecorated method, kept on the wrapper. */
export const ORIGINAL_METHOD = Symbol('redis-patterns:original-method');
