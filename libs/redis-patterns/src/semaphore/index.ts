// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export {};
