/**
 * Equality of JSON values, the one every comparison of objects, specs and statuses uses: what
 * two values would look like on the wire. Object key order does not matter, array order does,
 * and a property holding `undefined` counts as absent (`JSON.stringify` drops it too).
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao).filter((k) => ao[k] !== undefined);
  let inB = 0;
  for (const k of Object.keys(bo)) if (bo[k] !== undefined) inB++;
  if (keys.length !== inB) return false;
  for (const k of keys) if (!Object.hasOwn(bo, k) || !deepEqual(ao[k], bo[k])) return false;
  return true;
}
