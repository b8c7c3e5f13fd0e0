// Type test: compiles fixtures/role-props.ts with the TypeScript compiler. Every `@ts-expect-error`
// line must be an error (else tsc reports an unused directive), and with the directives removed
// each of those lines fails at, or naming, the field in question.

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const FIXTURE = resolve(__dirname, 'fixtures', 'role-props.ts');
const STRIPPED = resolve(__dirname, 'fixtures', 'role-props.stripped.ts');
const options: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  esModuleInterop: true,
  types: ['node'],
  typeRoots: [join(__dirname, '..', '..', 'node_modules', '@types')],
};

/** Diagnostics of one root file; `text` replaces the file's content in memory when given. */
function diagnostics(file: string, text?: string): { line: number; message: string; at: string }[] {
  const host = ts.createCompilerHost(options);
  if (text !== undefined) {
    const read = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.fileExists = (
      (orig) => (f: string) =>
        f === file || orig(f)
    )(host.fileExists.bind(host));
    host.readFile = (f) => (f === file ? text : read(f));
    host.getSourceFile = (f, lang, onError, create) => (f === file ? ts.createSourceFile(f, text, lang) : getSourceFile(f, lang, onError, create));
  }
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file)
    .map((d) => ({
      line: d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
      at: d.file!.text.slice(d.start ?? 0, (d.start ?? 0) + (d.length ?? 0)),
    }));
}

describe('CloudAuthRole props types', () => {
  const source = readFileSync(FIXTURE, 'utf8');
  const directiveLines = source
    .split('\n')
    .map((l, i) => ({ l, line: i + 1 }))
    .filter(({ l }) => l.trim().startsWith('// @ts-expect-error'));

  it('compiles with every @ts-expect-error used', () => {
    expect(directiveLines.length).toBe(6);
    expect(diagnostics(FIXTURE)).toEqual([]);
  }, 60_000);

  it('rejects each marked line for the named field once the directive is removed', () => {
    // Replace each directive by an empty comment so line numbers stay the same.
    const stripped = source.replace(/\/\/ @ts-expect-error/g, '//');
    const errors = diagnostics(STRIPPED, stripped);
    for (const { l, line } of directiveLines) {
      const onNext = errors.filter((e) => e.line === line + 1);
      expect({ line: line + 1, hasError: onNext.length > 0 }).toEqual({ line: line + 1, hasError: true });
      const field = /(boundZones|maxJwtExp|allowVmInference|boundLabels|boundServiceAccounts|bucket)/.exec(l)?.[1];
      expect(onNext.map((e) => `${e.at}: ${e.message}`).join('\n')).toContain(field);
    }
  }, 60_000);
});
