// Read-only views of plain data handed to user code (a strategy's params and market terms): a
// change there would reach every market sharing the object, or the engine's own copy.

/** A frozen deep copy of plain data (objects, arrays, primitives). */
export function frozenCopy<T>(v: T): T {
  return deepFreeze(structuredClone(v));
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}
