// Bounded parallelism: run async work over items with at most `limit` in flight, keeping order.

export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  let firstError: unknown;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (e) {
        if (!failed) firstError = e;
        failed = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failed) throw firstError;
  return out;
}

/** Like mapLimit but never stops early: every item runs, results say which failed. */
export async function settleLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<Array<{ ok: true; value: R } | { ok: false; error: unknown }>> {
  return mapLimit(items, limit, async (item) => {
    try {
      return { ok: true as const, value: await fn(item) };
    } catch (error) {
      return { ok: false as const, error };
    }
  });
}
