// The token store under interleaving: a storage that answers every call on a later turn of the
// event loop, so renewals, uses and revocations of one token overlap at every await. Writes of a
// token record must still serialize: a revocation is final, and a use limit is never exceeded.

import { ManualClock } from '../../../../src/engine/clock';
import { JsonStore } from '../../../../src/engine/storage/json-store';
import { MemoryStorage } from '../../../../src/engine/storage/memory';
import type { StorageOp } from '../../../../src/engine/storage/storage';
import { TokenStore } from '../../../../src/engine/token/token-store';

/** Every call resolves on a later macrotask, in call order: overlapping requests interleave. */
class InterleavingStorage extends MemoryStorage {
  private turn = () => new Promise<void>((r) => setImmediate(r));
  override async get(key: string) {
    await this.turn();
    return super.get(key);
  }
  override async put(key: string, value: Buffer) {
    await this.turn();
    return super.put(key, value);
  }
  override async batch(ops: StorageOp[]) {
    await this.turn();
    return super.batch(ops);
  }
}

const seal = { encrypt: (b: Buffer) => b, decrypt: (b: Buffer) => b };

function store() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  return { clock, tokens: new TokenStore(new JsonStore(new InterleavingStorage()), seal, clock, Buffer.alloc(32, 7)) };
}

const settings = { ttl: 3600, maxTtl: 0, period: 0 };
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    () => 'refused',
  );

describe('TokenStore under concurrent writes of one token', () => {
  it('a revocation racing renewals and uses is final: the record stays gone', async () => {
    const { tokens } = store();
    for (let round = 0; round < 10; round++) {
      const t = await tokens.create({ type: 'service', policies: ['default'], path: 'auth/token/create', displayName: 't', namespaceId: 'root', ttl: 600, orphan: true });
      // Every racer holds the copy read when its request began, as the HTTP layer does.
      const held = (await tokens.lookup(t.id))!;
      const racers = [
        ...Array.from({ length: 5 }, () => outcome(tokens.extend({ ...held }, 3600, settings))),
        ...Array.from({ length: 5 }, () => tokens.use({ ...held }).then((u) => (u.ok ? 'ok' : 'refused'))),
      ];
      racers.splice(
        round % racers.length,
        0,
        tokens.revoke({ ...held }).then(() => 'revoked'),
      );
      await Promise.all(racers);
      expect(await tokens.lookup(t.id)).toBeUndefined();
      expect(await tokens.lookupAccessor(t.accessor)).toBeUndefined();
      expect(await outcome(tokens.extend({ ...held }, 3600, settings))).toBe('refused');
      expect((await tokens.use({ ...held })).ok).toBe(false);
    }
  });

  it('num_uses=1 with 20 concurrent uses: exactly one succeeds and the token is unusable after it', async () => {
    const { tokens } = store();
    const t = await tokens.create({ type: 'service', policies: ['default'], path: 'auth/token/create', displayName: 't', namespaceId: 'root', ttl: 600, orphan: true, numUses: 1 });
    const held = (await tokens.lookup(t.id))!;
    const uses = await Promise.all(Array.from({ length: 20 }, () => tokens.use({ ...held })));
    expect(uses.filter((u) => u.ok)).toEqual([{ ok: true, revokeAfter: true }]);
    expect(await tokens.lookup(t.id)).toBeUndefined();
  });

  it('a renewal keeps the uses spent meanwhile (it writes the stored record, not its stale copy)', async () => {
    const { clock, tokens } = store();
    const t = await tokens.create({ type: 'service', policies: ['default'], path: 'auth/token/create', displayName: 't', namespaceId: 'root', ttl: 600, orphan: true, numUses: 5 });
    const held = (await tokens.lookup(t.id))!;
    await Promise.all([tokens.use({ ...held }), tokens.use({ ...held }), tokens.extend({ ...held }, 3600, settings), tokens.use({ ...held })]);
    const now = (await tokens.lookup(t.id))!;
    expect(now.numUses).toBe(2);
    expect(now.expireTime).toBe(clock.now() + 3600_000);
    expect(now.lastRenewalTime).toBe(clock.now());
  });

  it('a child is never attached to a parent being revoked', async () => {
    const { tokens } = store();
    const parent = await tokens.create({ type: 'service', policies: ['root'], path: 'auth/token/create', displayName: 'p', namespaceId: 'root', ttl: 600, orphan: true });
    const child = () =>
      tokens.create({
        type: 'service',
        policies: ['default'],
        path: 'auth/token/create',
        displayName: 'c',
        namespaceId: 'root',
        ttl: 600,
        orphan: false,
        parentAccessor: parent.accessor,
      });
    const results = await Promise.all([outcome(child()), tokens.revoke(parent).then(() => 'revoked'), outcome(child())]);
    expect(results[1]).toBe('revoked');
    expect(results[2]).toBe('refused');
    // Whatever was created before the revocation died with the parent.
    expect(await tokens.lookupAccessor(parent.accessor)).toBeUndefined();
  });
});
