// crc32Combine against node:zlib's CRC-32 of the concatenation.

import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { crc32Combine } from '../../../../src/engine/snapshot/crc32-combine';

it.each([
  [0, 0],
  [0, 1],
  [1, 0],
  [7, 1],
  [1000, 3],
  [65_535, 65_536],
  [5, 1024 * 1024],
  [3, 3 * 1024 * 1024 + 17],
])('crc(A‖B) from crc(A), crc(B) and |B| (|A| %i, |B| %i)', (a, b) => {
  const A = randomBytes(a);
  const B = randomBytes(b);
  expect(crc32Combine(crc32(A), crc32(B), b)).toBe(crc32(Buffer.concat([A, B])));
});

it('folds many chunks in sequence like one running CRC', () => {
  const parts = Array.from({ length: 20 }, (_, i) => randomBytes(1 + i * 997));
  let folded = crc32(Buffer.alloc(0));
  for (const p of parts) folded = crc32Combine(folded, crc32(p), p.length);
  expect(folded).toBe(crc32(Buffer.concat(parts)));
});
