// Read-only views of data handed to user code (a strategy's params and market terms): a change
// there would reach every market sharing the object, or the engine's own copy.

/** A frozen deep copy of plain data (objects, arrays, primitives: market terms). */
export function frozenCopy<T>(v: T): T {
  return deepFreeze(structuredClone(v));
}

/**
 * `v` frozen in place, through its plain objects and arrays; class instances (a Decimal a params
 * schema made) and functions are left as they are: freezing or copying them would break them.
 */
export function deepFreeze<T>(v: T): T {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return v;
  const proto: unknown = Object.getPrototypeOf(v);
  if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return v;
  Object.freeze(v);
  for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  return v;
}
