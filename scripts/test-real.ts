// `npm run test:real`: the suites against real OpenBao (test/real), once and one file at a time
// (jest.real.config.js). With KEYWARD_SKIP_REAL_SERVERS=1 (a contributor without Go or Python) it says loudly that
// they did not run; CI refuses that opt-out.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

if (process.env.KEYWARD_SKIP_REAL_SERVERS === '1') {
  if (process.env.CI) {
    process.stderr.write('test:real: KEYWARD_SKIP_REAL_SERVERS=1 is refused in CI\n');
    process.exit(1);
  }
  process.stderr.write(`\n${'!'.repeat(100)}\n!! test:real: SKIPPED (KEYWARD_SKIP_REAL_SERVERS=1): nothing was checked against real OpenBao.\n${'!'.repeat(100)}\n\n`);
  process.exit(0);
}
const jest = join(__dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js');
const r = spawnSync(process.execPath, [jest, '-c', join(__dirname, '..', 'jest.real.config.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
