// JSON parse errors are said without the input (issue 23): whatever V8's message quotes, the detail
// names the grammar and an offset only, and a GCS target given a key that is not JSON says so
// without quoting it.

import { randomBytes } from 'node:crypto';
import { jsonErrorDetail } from '../../../src/engine/json-error';
import { GcsTarget } from '../../../src/engine/snapshot/targets/gcs';

const secret = () =>
  randomBytes(30)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, 'x')
    .replace(/^./, 'g');
const pieces = (s: string) => Array.from({ length: s.length - 5 }, (_, i) => s.slice(i, i + 6));

function detailOf(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return jsonErrorDetail(e as Error);
  }
  throw new Error('parsed');
}

it.each([
  (k: string) => `{"credentials": ${k}}`,
  (k: string) => `{"a": "${k}`,
  (k: string) => `{"a": 1} ${k}`,
  (k: string) => `{${k}: 1}`,
  (k: string) => `["${k}" "x"]`,
  (k: string) => `{"a": "${k}\u0001"}`,
  (k: string) => `{"a": -${k}}`,
])('the detail holds no piece of the input (%#)', (make) => {
  const k = secret();
  const d = detailOf(make(k));
  expect(d).toMatch(/JSON/);
  for (const p of pieces(k)) expect(d).not.toContain(p);
});

it('a GCS key that is not JSON is refused without quoting it', () => {
  const k = secret();
  let message = '';
  try {
    new GcsTarget({ bucket: 'b', pathPrefix: '', serviceAccountKey: `{"type": "service_account", "private_key": ${k}}` });
  } catch (e) {
    message = (e as Error).message;
  }
  expect(message).toMatch(/^the service account key is not valid JSON: /);
  for (const p of pieces(k)) expect(message).not.toContain(p);
});
