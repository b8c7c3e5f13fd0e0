// The CI recipes of examples/ci/ run, not only parse: each job's command lines run in order with bash
// (test/support/ci-runner.ts) in a temp copy of a small cdktn app, against `keyward server --dev` started here, with
// Node 22 and cdktn-cli from tools/cdktn (scripts/test-tools.ts). The pull request job plans with a read-only token
// and leaves its Markdown as the comment; the deploy job fetches that comment through stand-ins of `gh` / the GitLab
// API on PATH (test/e2e/fixtures/ci-standins), synthesizes, plans with Terraform and applies only when the merge-time
// plan carries the reviewed digest. Every command the recipes name exists, with the flags they pass.

import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { cdktnTools, TOOLS_DIR, type CdktnTools } from '../../scripts/test-tools';
import { api } from '../support/engine';
import { startEngineProcess, type EngineProcess } from '../support/engine-process';
import { loadRecipe, recipeLines, runGitlabJob, runGithubJob, stickyMarker, type JobResult, type RunContext } from '../support/ci-runner';
import { runAsync } from '../support/run-async';
import { offlineEnv } from '../support/offline-env';

const REPO = resolve(__dirname, '../..');
const CI = join(REPO, 'examples', 'ci');
const APP = join(__dirname, 'fixtures', 'ci-app');
const STANDINS = join(__dirname, 'fixtures', 'ci-standins');
const ROOT = 'ci-recipes-root';
// Two pull request runs and two deploys per recipe, each a cdktn synth (the deploys also terraform init/plan).
const TIMEOUT = 300_000;

const READ_ONLY_POLICY = 'path "*" {\n  capabilities = ["read", "list"]\n}\n';

/** A checked-out repository: the app, its node_modules linked to this checkout's (no registry). */
function checkout(tools: CdktnTools): string {
  const dir = mkdtempSync(join(tmpdir(), 'kw-ci-'));
  cpSync(APP, dir, { recursive: true });
  const nm = join(dir, 'node_modules');
  mkdirSync(join(nm, '.bin'), { recursive: true });
  for (const dep of ['cdktn', 'constructs', 'tsx']) symlinkSync(join(REPO, 'node_modules', dep), join(nm, dep), 'dir');
  symlinkSync(REPO, join(nm, 'keyward'), 'dir');
  symlinkSync(join(TOOLS_DIR, 'node_modules', 'cdktn-cli'), join(nm, 'cdktn-cli'), 'dir');
  // What npm links into node_modules/.bin: each runs on the `node` first on PATH (Node 22 after setup-node).
  const bin = (name: string, script: string) => writeFileSync(join(nm, '.bin', name), `#!/bin/sh\nexec node '${script}' "$@"\n`, { mode: 0o755 });
  bin('cdktn', tools.cli);
  bin('keyward', join(REPO, 'bin', 'keyward.js'));
  bin('tsx', join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs'));
  return dir;
}

/** A commit that changes the deployer role's TTL in the app. */
function setTtl(dir: string, ttl: string) {
  const main = join(dir, 'main.ts');
  writeFileSync(main, readFileSync(main, 'utf8').replace(/const ROLE_TTL = '[^']*';/, `const ROLE_TTL = '${ttl}';`));
}

/** The job's result, its log (the end) in the failure message when the status is not the one expected. */
function expectStatus(r: JobResult, ok: boolean) {
  if ((r.status === 0) !== ok) throw new Error(`the job ${ok ? 'failed' : 'succeeded'} (status ${r.status}):\n${r.log.slice(-6000)}`);
}

describe('CI recipes (examples/ci) run against keyward server --dev', () => {
  let tools: CdktnTools;
  let engine: EngineProcess;
  let work: string;
  let readToken: string;
  const dirs: string[] = [];

  beforeAll(async () => {
    tools = cdktnTools();
    work = mkdtempSync(join(tmpdir(), 'kw-ci-work-'));
    engine = await startEngineProcess({ dataDir: join(work, 'data'), rootToken: ROOT });
    // The pull request job's token: a policy that only reads, as examples/ci/README.md asks.
    expect((await api(engine.url, 'PUT', 'sys/policy/keyward-read', { token: ROOT, body: { policy: READ_ONLY_POLICY } })).status).toBeLessThan(300);
    const t = await api(engine.url, 'POST', 'auth/token/create', { token: ROOT, body: { policies: ['keyward-read'], no_default_policy: true } });
    readToken = t.body.auth.client_token;
    expect(readToken).toEqual(expect.any(String));
  }, 60_000);
  afterAll(() => {
    engine?.stop();
    for (const d of [...dirs, work]) if (d) rmSync(d, { recursive: true, force: true });
  });

  // The hosted runner's environment: no network, the stand-ins first on PATH, Node 20 until setup-node.
  const runnerEnv = (extra: Record<string, string>): Record<string, string> => {
    const base = offlineEnv({ PATH: `${STANDINS}${delimiter}${process.env.PATH ?? ''}`, CI: 'true', FORCE_COLOR: '0', NO_COLOR: '1', NO_PROXY: '127.0.0.1,localhost', ...extra });
    delete base.VAULT_ADDR;
    delete base.VAULT_TOKEN;
    return Object.fromEntries(Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined));
  };

  const role = async (mount: string) => (await api(engine.url, 'GET', `auth/${mount}/role/deployer`, { token: ROOT })).body?.data?.token_ttl;

  it('every command the recipes run exists, with the flags they pass', async () => {
    const env = runnerEnv({ PATH: `${tools.nodeBinDir}${delimiter}${process.env.PATH ?? ''}` });
    const checked: string[] = [];
    for (const file of ['github-actions.yml', 'gitlab-ci.yml']) {
      for (const line of recipeLines(loadRecipe(join(CI, file)))) {
        const m = /(?:^|\s)npx (keyward|cdktn) ([a-z-]+)(.*)$/.exec(line) ?? /(?:^|\s)(terraform) ([a-z-]+)(.*)$/.exec(line);
        if (!m) continue;
        const [, tool, cmd, rest] = m;
        const argv = tool === 'keyward' ? [process.execPath, join(REPO, 'bin', 'keyward.js')] : tool === 'cdktn' ? [tools.node, tools.cli] : ['terraform'];
        const r = await runAsync(argv[0], [...argv.slice(1), cmd, tool === 'terraform' ? '-help' : '--help'], { env });
        const help = r.stdout + r.stderr;
        expect({ line, status: r.status }).toEqual({ line, status: 0 });
        for (const flag of rest.match(/(?<=\s)--?[a-z][a-z-]*/g) ?? []) expect({ line, flag, known: help.includes(flag) }).toEqual({ line, flag, known: true });
        checked.push(`${tool} ${cmd}`);
      }
    }
    expect(new Set(checked)).toEqual(new Set(['cdktn synth', 'keyward plan', 'keyward show', 'terraform init', 'terraform plan', 'terraform show', 'terraform apply']));
  }, 120_000);

  it(
    'GitHub Actions: the PR job comments the plan (and fails on locks-out, still commenting); the deploy applies the reviewed plan, and refuses one changed after review or never reviewed',
    async () => {
      const workflow = loadRecipe(join(CI, 'github-actions.yml'));
      const on = workflow.on as Record<string, unknown>;
      expect(Object.keys(on).sort()).toEqual(['pull_request', 'push']); // never pull_request_target
      const repo = checkout(tools);
      dirs.push(repo);
      const comment = join(work, 'github-comment.md');
      const ctx = (sha: string, mergedSha: string, token: 'read' | 'write'): RunContext => ({
        cwd: repo,
        env: runnerEnv({ GITHUB_REPOSITORY: 'acme/infra', GITHUB_SHA: sha, KW_STANDIN_PR: '7', KW_STANDIN_MERGED_SHA: mergedSha, KW_STANDIN_COMMENT: comment }),
        node22BinDir: tools.nodeBinDir,
        vars: { KEYWARD_ADDR: engine.url },
        secrets: token === 'read' ? { KEYWARD_READ_TOKEN: readToken } : { KEYWARD_WRITE_TOKEN: ROOT },
        commentFile: comment,
      });

      // 1. A pull request adds the stack: the comment carries the digest; nothing is written by the PR job.
      const pr = await runGithubJob(workflow, 'plan', ctx('pr-head-1', 'merge-1', 'read'));
      expectStatus(pr, true);
      const body = readFileSync(comment, 'utf8');
      expect(body).toMatch(/Reviewed-plan digest:/);
      expect(body).toMatch(/<!-- keyward-decisions /);
      expect(body).toContain(stickyMarker('keyward-plan'));
      expect(await role('ci')).toBeUndefined();

      // 2. Its merge deploys the reviewed plan.
      const deploy = await runGithubJob(workflow, 'deploy', ctx('merge-1', 'merge-1', 'write'));
      expectStatus(deploy, true);
      expect(deploy.log).toMatch(/Apply complete! Resources: 1 added/);
      expect(await role('ci')).toBe(3600);

      // 3. A pull request reviewed at 2h, merged with 3h (a commit after review): the deploy refuses, naming the role.
      setTtl(repo, '2h');
      expectStatus(await runGithubJob(workflow, 'plan', ctx('pr-head-2', 'merge-2', 'read')), true);
      setTtl(repo, '3h');
      const refused = await runGithubJob(workflow, 'deploy', ctx('merge-2', 'merge-2', 'write'));
      expectStatus(refused, false);
      expect(refused.log).toMatch(/--expect-digest: the plan is not the one reviewed[^\n]*\n\s*~ auth\/ci\/role\/deployer: a different change than the one reviewed/);
      expect(refused.log).not.toMatch(/Apply complete/);
      expect(await role('ci')).toBe(3600);

      // 4. A push to main no merged pull request carries has no reviewed plan: nothing applies.
      const unreviewed = await runGithubJob(workflow, 'deploy', ctx('direct-push', 'merge-2', 'write'));
      expectStatus(unreviewed, false);
      expect(unreviewed.log).toMatch(/no merged pull request has commit direct-push/);

      // 5. A pull request that removes the mount locks every login out: --fail-on fails the job (exit 4, naming the
      // mount), and the comment still shows the plan to the reviewers.
      const main = join(repo, 'main.ts');
      writeFileSync(main, readFileSync(main, 'utf8').replace(/^const backend[\s\S]*?(?=app\.synth\(\);)/m, 'void server;\n'));
      const locked = await runGithubJob(workflow, 'plan', ctx('pr-head-3', 'merge-3', 'read'));
      expectStatus(locked, false);
      expect(locked.log).toMatch(/--fail-on: [^\n]*\n\s*auth\/ci: [^\n]*locks-out/);
      expect(locked.log).toMatch(/## Plan failed with exit code 4/);
      expect(locked.log).toMatch(/## Comment the plan on the pull request\n/);
      expect(readFileSync(comment, 'utf8')).toMatch(/auth\/ci[\s\S]*locks out/);
      expect(await role('ci')).toBe(3600);
    },
    TIMEOUT,
  );

  it(
    'GitLab CI: the MR job posts the plan as one note, updated on every push (sticky); the deploy applies the reviewed plan from that note, and refuses one changed after review',
    async () => {
      const pipeline = loadRecipe(join(CI, 'gitlab-ci.yml'));
      const repo = checkout(tools);
      dirs.push(repo);
      // The GitLab app manages its own mount so the two recipes do not share server state.
      const main = join(repo, 'main.ts');
      writeFileSync(main, readFileSync(main, 'utf8').replace("path: 'ci'", "path: 'ci-gitlab'"));
      const notes = join(work, 'gitlab-notes.json');
      const ctx = (vars: Record<string, string>, token: string): RunContext => ({
        cwd: repo,
        env: runnerEnv({
          CI_API_V4_URL: 'https://gitlab.example/api/v4',
          CI_PROJECT_ID: '42',
          CI_DEFAULT_BRANCH: 'main',
          KEYWARD_ADDR: engine.url,
          KEYWARD_NOTE_TOKEN: 'note-token',
          KW_STANDIN_MR_IID: '9',
          KW_STANDIN_NOTES: notes,
          ...(token === 'read' ? { KEYWARD_READ_TOKEN: readToken } : { KEYWARD_WRITE_TOKEN: ROOT }),
          ...vars,
        }),
        node22BinDir: tools.nodeBinDir,
      });
      const mr = (sha: string) => ctx({ CI_PIPELINE_SOURCE: 'merge_request_event', CI_COMMIT_SHA: sha, CI_MERGE_REQUEST_IID: '9' }, 'read');
      const merge = (sha: string, merged: string) => ctx({ CI_PIPELINE_SOURCE: 'push', CI_COMMIT_BRANCH: 'main', CI_COMMIT_SHA: sha, KW_STANDIN_MERGED_SHA: merged }, 'write');

      type Note = { id: number; author: { id: number }; body: string };
      const readNotes = () => JSON.parse(readFileSync(notes, 'utf8')) as Note[];
      /** The notes the note token (the stand-in's user 77) wrote with the marker: the sticky note, once. */
      const keywardNotes = () => readNotes().filter((n) => n.author.id === 77 && n.body.includes('<!-- keyward-plan -->'));
      const digestOf = (body: string) => /Reviewed-plan digest: <code>(sha256:[0-9a-f]{64})<\/code>/.exec(body)?.[1];
      // A reviewer's note, and one by another user that quotes the marker: neither is keyward's.
      const quoted = `Reviewed-plan digest: <code>sha256:${'0'.repeat(64)}</code>\n<!-- keyward-plan -->\n`;
      writeFileSync(
        notes,
        JSON.stringify([
          { id: 1, author: { id: 5 }, body: 'Looks good to me', updated: 1 },
          { id: 2, author: { id: 6 }, body: quoted, updated: 2 },
        ]),
      );

      const plan = await runGitlabJob(pipeline, 'keyward-plan', mr('mr-head-1'));
      expectStatus(plan, true);
      expect(plan.log).not.toMatch(/stand-in curl/);
      expect(keywardNotes()).toHaveLength(1);
      const sticky = keywardNotes()[0];
      expect(sticky.body).toMatch(/Reviewed-plan digest:[\s\S]*<!-- keyward-plan -->/);
      expect(await role('ci-gitlab')).toBeUndefined();

      // Someone else posts a newer note quoting the marker with another digest, and the review goes on for 150 more
      // notes (more than one page of 100): the deploy still reads keyward's own note.
      const impostor = readNotes();
      impostor.push({ id: 4, author: { id: 6 }, body: quoted, ...{ updated: 99 } });
      for (let i = 0; i < 150; i++) impostor.push({ id: 10 + i, author: { id: 5 }, body: `comment ${i}`, ...{ updated: 100 + i } });
      writeFileSync(notes, JSON.stringify(impostor));
      const deploy = await runGitlabJob(pipeline, 'keyward-deploy', merge('merge-1', 'merge-1'));
      expectStatus(deploy, true);
      expect(deploy.log).toMatch(/Apply complete! Resources: 1 added/);
      expect(await role('ci-gitlab')).toBe(3600);

      // A second push to the merge request updates the same note (sticky), with the new plan's digest.
      setTtl(repo, '2h');
      const second = await runGitlabJob(pipeline, 'keyward-plan', mr('mr-head-2'));
      expectStatus(second, true);
      expect(second.log).not.toMatch(/stand-in curl/);
      expect(keywardNotes().map((n) => n.id)).toEqual([sticky.id]);
      expect(readNotes()).toHaveLength(154);
      expect(digestOf(keywardNotes()[0].body)).toMatch(/^sha256:/);
      expect(digestOf(keywardNotes()[0].body)).not.toBe(digestOf(sticky.body));
      expect(keywardNotes()[0].body).toContain('auth/ci-gitlab/role/deployer');
      setTtl(repo, '3h');
      const refused = await runGitlabJob(pipeline, 'keyward-deploy', merge('merge-2', 'merge-2'));
      expectStatus(refused, false);
      expect(refused.log).toMatch(/--expect-digest: the plan is not the one reviewed[^\n]*\n\s*~ auth\/ci-gitlab\/role\/deployer: a different change than the one reviewed/);
      expect(refused.log).not.toMatch(/Apply complete/);
      expect(await role('ci-gitlab')).toBe(3600);
    },
    TIMEOUT,
  );
});
