// Every byte of a stream (an object-store download, a request body), for tests: one helper instead
// of a copy per file.

export async function readAll(r: AsyncIterable<Buffer | Uint8Array | string>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array));
  return Buffer.concat(parts);
}
