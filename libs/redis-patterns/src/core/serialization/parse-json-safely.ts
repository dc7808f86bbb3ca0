// Any of these in the text sends the parse through the sanitizing reviver. `\u` catches escaped spellings
// such as "\u005f_proto__", which JSON.parse would otherwise turn into a real "__proto__" key.
const SUSPICIOUS = /__proto__|constructor|prototype|\\u/;

/**
 * Whether a key/value pair of parsed JSON could reach `Object.prototype` when the result is assigned or merged into
 * another object: a `__proto__` key, or a `constructor` / `prototype` key holding an object.
 */
export function isPrototypeKey(key: string, value: unknown): boolean {
  return key === '__proto__' || ((key === 'constructor' || key === 'prototype') && typeof value === 'object' && value !== null);
}

/** A JSON.parse reviver that drops the pairs {@link isPrototypeKey} names. */
export function sanitizingReviver(key: string, value: unknown): unknown {
  return isPrototypeKey(key, value) ? undefined : value;
}

/**
 * Parses JSON read from Redis, which anything with access to the server may have written: prototype keys are
 * dropped, so assigning or merging the result can never pollute `Object.prototype`. The common case (no suspicious
 * text) is a bare `JSON.parse`.
 */
export function parseJsonSafely(json: string): unknown {
  return SUSPICIOUS.test(json) ? JSON.parse(json, sanitizingReviver) : JSON.parse(json);
}
