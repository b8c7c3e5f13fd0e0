// The command table is the one place a reconciling command's flags are declared: registration,
// types, help and plan's "to apply this plan" hint come from it. These tests parse with the real
// commander program (no process, no socket) so a flag the hint repeats but apply does not accept,
// or a hint that drops one, fails here.

import type { Command } from 'commander';
import { applyCommandFor, COMMANDS, FLAGS, propOf, type CommandFlags } from '../../../src/cli/command-table';
import { buildProgram } from '../../../src/cli/main';
import type { PlanFlags } from '../../../src/cli/options';

/** What the real program's `name` command receives for `args` (its action replaced, nothing runs). */
function parsed(name: string, args: string[]): Record<string, unknown> {
  const program = buildProgram().exitOverride();
  const c = program.commands.find((x) => x.name() === name)!;
  let got: Record<string, unknown> = {};
  c.exitOverride().action(function (this: Command) {
    got = this.opts();
  });
  program.parse(['node', 'keyward', name, ...args]);
  return got;
}

/** Splits a hint as a POSIX shell would (the quoting applyCommandFor produces: '…' with '\'' inside). */
function shellWords(s: string): string[] {
  return [...s.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]));
}

test("every flag plan's hint repeats is one apply accepts, and the hint gives apply the same values", () => {
  const planArgs = ['--dir', 'cdktf out', '--stack', "it's", '--last-applied', 'r.json', '--last-applied-env', 'REC', '--record', 'keyward', '--resend', 'a/b', '--resend', 'c/d'];
  const plan = parsed('plan', [...planArgs, '--format', 'json', '--detailed-exitcode']) as PlanFlags;
  const hint = applyCommandFor(plan);
  expect(hint).toBe("keyward apply --dir 'cdktf out' --stack 'it'\\''s' --last-applied r.json --last-applied-env REC --record keyward --resend a/b --resend c/d");
  const [, command, ...rest] = shellWords(hint);
  const apply = parsed(command, rest);
  const carried = COMMANDS.plan.flags.filter((id) => 'toApply' in FLAGS[id] && FLAGS[id].toApply);
  expect(carried.length).toBeGreaterThan(0);
  for (const id of carried) {
    expect(COMMANDS.apply.flags).toContain(id);
    expect([id, apply[propOf(FLAGS[id].flag)]]).toEqual([id, plan[propOf(FLAGS[id].flag) as keyof PlanFlags]]);
  }
  // Output flags stay behind; a saved plan is applied by its file.
  expect(hint).not.toMatch(/--format|--detailed-exitcode/);
  expect(applyCommandFor({ ...plan, out: 'p.plan' })).toBe('keyward apply --plan p.plan');
});

test('flag types follow the table: a switch is boolean, a value a string, a repeatable flag a list, a choice its union', () => {
  const f: CommandFlags<'plan'> = { format: 'markdown', parallelism: '4', planOnly: true, resend: ['x'], record: 'terraform' };
  // @ts-expect-error: --format takes text, markdown or json only
  const bad: CommandFlags<'plan'> = { format: 'yaml', parallelism: '4' };
  // @ts-expect-error: --plan is apply's flag, not plan's
  const notPlan: CommandFlags<'plan'> = { format: 'text', parallelism: '4', plan: 'x' };
  expect([f, bad, notPlan].length).toBe(3);
});

test('a usage error prints the error and one line about --help, not the whole help', () => {
  let err = '';
  const program = buildProgram().exitOverride();
  for (const c of [program, ...program.commands]) c.exitOverride().configureOutput({ writeErr: (s) => (err += s), writeOut: (s) => (err += s) });
  expect(() => program.parse(['node', 'keyward', 'plan', '--bogus'])).toThrow();
  expect(err).toBe("error: unknown option '--bogus'\nRun `keyward plan --help` for usage.\n");
});

test('every table flag shows in its command help', () => {
  const program = buildProgram();
  for (const [name, spec] of Object.entries(COMMANDS)) {
    const help = program.commands.find((c) => c.name() === name)!.helpInformation();
    for (const id of spec.flags) expect([name, help.includes(FLAGS[id].flag.split(' ')[0])]).toEqual([name, true]);
  }
});
