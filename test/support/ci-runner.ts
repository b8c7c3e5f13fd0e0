// A local runner for the CI recipes in examples/ci/: it runs a GitHub Actions job's `run:` steps, or a GitLab CI job's
// `before_script`/`script`/`after_script` lines, in order with bash, as the hosted runners do (bash -eo pipefail; a
// failing step ends the job). What a hosted runner provides and this machine has not is replaced, by name, with what it
// does locally, so a recipe step this runner does not know is an error rather than silently skipped:
// - `uses:` actions/checkout: the job's working directory is already the checked-out copy;
//   actions/setup-node: Node 22 goes first on PATH; hashicorp/setup-terraform: terraform is already on PATH;
//   marocchino/sticky-pull-request-comment: the file it would post becomes the pull request's comment (`comments`
//   below), with the marker the action adds, for the stand-in `gh` the deploy job reads it through;
// - the dependency install (`npm ci`): the test links node_modules beforehand (no registry here).
// `${{ }}` expressions are resolved for the few contexts the recipes use; GitLab variables are expanded like GitLab does.

import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { load } from 'js-yaml';
import { runAsync } from './run-async';

export interface JobResult {
  status: number;
  /** Every step's output, in order, each after a `## step` line. */
  log: string;
}

export interface RunContext {
  /** The checked-out copy the job runs in. */
  cwd: string;
  /** The environment the hosted runner would give (PATH, CI variables, ...). */
  env: Record<string, string>;
  /** The Node >= 22 binary directory setup-node / the node:22 image provides. */
  node22BinDir: string;
  secrets?: Record<string, string>;
  vars?: Record<string, string>;
  /** Where the sticky comment action writes the pull request's comment. */
  commentFile?: string;
}

type Yaml = Record<string, unknown>;
const asRecord = (v: unknown): Yaml => (v && typeof v === 'object' ? (v as Yaml) : {});
const strings = (v: unknown): Record<string, string> => Object.fromEntries(Object.entries(asRecord(v)).map(([k, x]) => [k, String(x)]));

export function loadRecipe(file: string): Yaml {
  return asRecord(load(readFileSync(file, 'utf8')));
}

/** The header the sticky comment action adds to a comment it owns, which finds it again (its source, v2). */
export const stickyMarker = (header: string): string => `<!-- Sticky Pull Request Comment${header} -->`;

const bash = async (script: string, cwd: string, env: Record<string, string>) => {
  const r = await runAsync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env });
  return { status: r.status ?? 1, out: r.stdout + r.stderr };
};

// ---- GitHub Actions ----

function githubExpr(text: string, ctx: RunContext, env: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    const m = /^(secrets|vars|env|github)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(expr);
    if (!m) throw new Error(`the local runner cannot evaluate \${{ ${expr} }}`);
    const [, scope, name] = m;
    const table: Record<string, string | undefined> =
      scope === 'secrets'
        ? (ctx.secrets ?? {})
        : scope === 'vars'
          ? (ctx.vars ?? {})
          : scope === 'env'
            ? env
            : { token: ctx.env.GITHUB_TOKEN_STANDIN ?? 'gh-token', sha: ctx.env.GITHUB_SHA };
    const v = table[name];
    if (v === undefined) throw new Error(`\${{ ${expr} }} is not set for the local runner`);
    return v;
  });
}

/** A step `if:` the runner understands: `!cancelled()` runs after a failure too; `hashFiles('f') != ''` needs f. */
function githubStepRuns(cond: unknown, failed: boolean, cwd: string): boolean {
  if (cond === undefined) return !failed;
  const text = String(cond).replace(/^\$\{\{\s*|\s*\}\}$/g, '');
  const parts = text.split('&&').map((s) => s.trim());
  let runs = !failed;
  for (const p of parts) {
    if (p === '!cancelled()' || p === 'always()') runs = true;
    else if (/^hashFiles\('([^']+)'\) != ''$/.test(p)) {
      if (!existsSync(join(cwd, /^hashFiles\('([^']+)'\)/.exec(p)![1]))) return false;
    } else throw new Error(`the local runner cannot evaluate the step condition ${p}`);
  }
  return runs;
}

export async function runGithubJob(workflow: Yaml, jobName: string, ctx: RunContext): Promise<JobResult> {
  const job = asRecord(asRecord(workflow.jobs)[jobName]);
  if (!Object.keys(job).length) throw new Error(`no job ${jobName} in the workflow`);
  let env: Record<string, string> = { ...ctx.env };
  for (const [k, v] of Object.entries({ ...strings(workflow.env), ...strings(job.env) })) env[k] = githubExpr(v, ctx, env);
  let failed = false;
  let log = '';
  for (const step of (job.steps as Yaml[]) ?? []) {
    const name = String(step.name ?? step.uses ?? step.run);
    if (!githubStepRuns(step.if, failed, ctx.cwd)) {
      log += `## ${name} (skipped)\n`;
      continue;
    }
    log += `## ${name}\n`;
    if (step.uses !== undefined) {
      const uses = String(step.uses);
      const w = strings(step.with);
      if (uses.startsWith('actions/checkout@')) continue;
      else if (uses.startsWith('actions/setup-node@')) {
        if (!/^2[2-9]$/.test(w['node-version'] ?? '')) throw new Error(`setup-node asks for Node ${w['node-version']}; cdktn needs >= 22`);
        env = { ...env, PATH: `${ctx.node22BinDir}${delimiter}${env.PATH}` };
      } else if (uses.startsWith('hashicorp/setup-terraform@')) {
        if (w.terraform_wrapper !== 'false') throw new Error('setup-terraform without terraform_wrapper: false wraps `terraform show -json`');
        const r = await bash('command -v terraform', ctx.cwd, env);
        if (r.status !== 0) throw new Error('terraform is not on PATH');
      } else if (uses.startsWith('marocchino/sticky-pull-request-comment@')) {
        if (!ctx.commentFile) throw new Error('no comment file for the sticky comment action');
        const body = readFileSync(join(ctx.cwd, w.path), 'utf8');
        writeFileSync(ctx.commentFile, `${body}\n${stickyMarker(w.header ?? '')}\n`);
      } else throw new Error(`the local runner does not know the action ${uses}`);
      continue;
    }
    const run = githubExpr(String(step.run), ctx, env);
    if (run.trim() === 'npm ci') continue; // node_modules is linked by the test
    const stepEnv = { ...env };
    for (const [k, v] of Object.entries(strings(step.env))) stepEnv[k] = githubExpr(v, ctx, env);
    const r = await bash(run, step['working-directory'] ? join(ctx.cwd, String(step['working-directory'])) : ctx.cwd, stepEnv);
    log += r.out;
    if (r.status !== 0) {
      log += `## ${name} failed with exit code ${r.status}\n`;
      if (!step['continue-on-error']) failed = true;
    }
  }
  return { status: failed ? 1 : 0, log };
}

// ---- GitLab CI ----

const gitlabExpand = (v: string, env: Record<string, string>) => v.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, n: string) => env[n] ?? '');

// GitLab flattens nested arrays in script lists (up to 10 levels), which is how `- *anchor` of a list of lines works.
const lines = (v: unknown): string[] => (Array.isArray(v) ? (v.flat(10) as unknown[]).map(String) : v === undefined ? [] : [String(v)]);

export async function runGitlabJob(pipeline: Yaml, jobName: string, ctx: RunContext): Promise<JobResult> {
  const job = asRecord(pipeline[jobName]);
  if (!Object.keys(job).length) throw new Error(`no job ${jobName} in the pipeline`);
  const dflt = asRecord(pipeline.default);
  const image = String(job.image ?? dflt.image ?? '');
  if (!/^node:2[2-9]/.test(image)) throw new Error(`job ${jobName} runs on image ${image}; cdktn needs Node >= 22`);
  // The node:22 image: its Node first on PATH.
  const env: Record<string, string> = { ...ctx.env, PATH: `${ctx.node22BinDir}${delimiter}${ctx.env.PATH}` };
  for (const [k, v] of Object.entries({ ...strings(pipeline.variables), ...strings(job.variables) })) env[k] = gitlabExpand(v, env);
  const script = [...lines(job.before_script ?? dflt.before_script), ...lines(job.script)].filter((l) => l.trim() !== 'npm ci'); // node_modules is linked by the test
  let log = `## ${jobName} script\n`;
  const main = await bash(script.join('\n'), ctx.cwd, env);
  log += main.out;
  const after = lines(job.after_script ?? dflt.after_script);
  if (after.length) {
    // GitLab runs after_script in a new shell, whatever the script's result.
    const r = await bash(after.join('\n'), ctx.cwd, env);
    log += `## ${jobName} after_script\n${r.out}`;
  }
  return { status: main.status, log };
}

/** Every command line of a recipe: the GitHub `run:` steps or the GitLab script lines, split into lines. */
export function recipeLines(recipe: Yaml): string[] {
  const out: string[] = [];
  const jobs = recipe.jobs ? Object.values(asRecord(recipe.jobs)) : Object.values(recipe).filter((j) => asRecord(j).script !== undefined);
  for (const j of jobs.map(asRecord)) {
    for (const s of (j.steps as Yaml[] | undefined) ?? []) if (s.run !== undefined) out.push(...String(s.run).split('\n'));
    for (const k of ['before_script', 'script', 'after_script']) for (const l of lines(j[k])) out.push(...l.split('\n'));
  }
  return out.map((l) => l.trim()).filter(Boolean);
}
