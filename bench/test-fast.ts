// How long `npm run test:fast` (every test under test/unit, in-process only) takes on this machine:
// runs it once (or N times) through jest's JSON reporter and prints the wall time, jest's own run
// time and the test count. The target is about a minute; a timed test would fail on a busy machine
// for reasons that are not the code's, so this is a script to run, not a test.
//
//   npx tsx bench/test-fast.ts [runs=1]

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '..');
const RUNS = Number(process.argv[2] ?? 1);
const TARGET_S = 60;

interface JestJson {
  numTotalTests: number;
  numFailedTests: number;
  numTotalTestSuites: number;
  startTime: number;
  testResults: { endTime: number }[];
}

const dir = mkdtempSync(join(tmpdir(), 'kw-bench-test-fast-'));
try {
  const walls: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const out = join(dir, `run-${i}.json`);
    const started = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [join(REPO, 'node_modules', 'jest', 'bin', 'jest.js'), '-c', 'jest.fast.config.js', '--silent', '--json', `--outputFile=${out}`], {
      cwd: REPO,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const wall = Number(process.hrtime.bigint() - started) / 1e9;
    const j = JSON.parse(readFileSync(out, 'utf8')) as JestJson;
    const jestS = (Math.max(...j.testResults.map((t) => t.endTime)) - j.startTime) / 1000;
    walls.push(wall);
    process.stdout.write(
      `run ${i + 1}: ${wall.toFixed(1)} s wall (jest ${jestS.toFixed(1)} s), ${j.numTotalTests} tests in ${j.numTotalTestSuites} files, ${j.numFailedTests} failed${r.status === 0 ? '' : ` (exit ${r.status})`}\n`,
    );
  }
  const median = [...walls].sort((a, b) => a - b)[Math.floor(walls.length / 2)];
  process.stdout.write(`npm run test:fast: median ${median.toFixed(1)} s over ${RUNS} run(s) (target about ${TARGET_S} s)\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
