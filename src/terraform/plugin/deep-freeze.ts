// Values shared between callers (memoized canonical roles, decoded values reused across RPCs) are
// frozen all the way down: a caller that tries to change one throws instead of changing it for all.

export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
