/** Metadata key of the advice declarations on a decorated method (an array, outermost decorator first). */
export const METHOD_ADVICE = 'redis-patterns:method-advice';
/** The undecorated method, kept on the wrapper. */
export const ORIGINAL_METHOD = Symbol('redis-patterns:original-method');
/** Marks a prototype whose bootstrap hook already checks the binding. */
export const BOOTSTRAP_CHECK_INSTALLED = Symbol('redis-patterns:bootstrap-check');
