// The scenario-parity tier (issue 40): the rows of the decision table that state every front end's
// action per object (test/e2e/scenarios/table.ts, `actions` steps) run through the decision modules
// alone, with no Terraform, no server and no subprocess. The expected actions are the rows' own,
// the ones test/e2e/one-decision.test.ts observed through real Terraform and the CLI against the
// contract server (and the server's state after the apply); here they must come out of the same
// decisions: the CLI's plan (keyward's record), `keyward show` of Terraform's saved plan, and the
// PR plan (Terraform's state as the record).

import { generateKeyPairSync } from 'node:crypto';
import { desiredFromManifest, withRecordFacts, type DesiredState } from '../../../src/reconcile/desired';
import { diff } from '../../../src/reconcile/diff';
import { readAsMoved, type LiveState } from '../../../src/reconcile/live';
import type { LiveObject } from '../../../src/reconcile/model';
import { recordedFrom, type LastApplied } from '../../../src/reconcile/record';
import { fingerprintSecret, parseManifest } from '../../../src/schema/manifest';
import { recordFromState } from '../../../src/terraform-state/state-record';
import { planFromTerraformJson } from '../../../src/terraform-state/terraform-plan';
import { manifestOf, SALT, type Stack } from '../../e2e/scenarios/stack';
import { SCENARIOS, type Step } from '../../e2e/scenarios/table';
import { backendPlan, backendState } from '../../support/terraform-json';

const key = (id: string) =>
  JSON.stringify({
    type: 'service_account',
    private_key_id: id,
    private_key: generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    client_email: 'keyward@p.iam.gserviceaccount.com',
  });
const ENV = { KW_CREDS: key('declared-1'), KW_CREDS2: key('declared-2'), KW_AZ: 'az-key-value' };

const desiredOf = (s: Stack): DesiredState => desiredFromManifest(parseManifest(manifestOf(s)), ENV);

/** The server as an apply of `s` leaves it: every declared object, read back canonically. */
function serverAfter(s: Stack): LiveState {
  const objects = new Map<string, LiveObject>();
  for (const d of desiredOf(s).objects.values()) {
    const secrets = Object.fromEntries(Object.keys(d.secrets).map((f) => [f, 'set' as const]));
    const observed = Object.fromEntries(Object.entries(d.secrets).flatMap(([f, x]) => (x.keyId ? [[f, x.keyId]] : [])));
    objects.set(d.id, { id: d.id, address: d.address, fields: d.fields, secrets, observed });
  }
  const roles = [...objects.values()].filter((o) => o.address.kind === 'role').map((o) => o.address.name!);
  return { objects, listedRoles: new Map([[s.path, roles]]), listedSnapshots: [], moved: new Map() };
}

/** The live read's own move step (live.ts readAsMoved), on copies of the server's state. */
function movedView(live: LiveState, desired: DesiredState): LiveState {
  const objects = new Map(live.objects);
  const listedRoles = new Map(live.listedRoles);
  const moved = readAsMoved(objects, listedRoles, desired.moves);
  return { ...live, objects, listedRoles, moved };
}

/** keyward_cloud_auth_backend `b` as the HCL path's state holds it after an apply of `s`. */
function backendAttributes(s: Stack): Record<string, unknown> {
  const config = s.config
    ? {
        ...(s.config.fields ?? {}),
        ...(s.config.credentialsEnv
          ? { credentials_env: s.config.credentialsEnv, credentials_fingerprint: fingerprintSecret(SALT, ENV[s.config.credentialsEnv as keyof typeof ENV]) }
          : {}),
      }
    : null;
  return { path: s.path, accessor: 'auth_cloud_1', retain_on_destroy: s.retain ? true : null, config, roles: s.roles ?? {} };
}

const actionsOf = (objects: { id: string; action: string }[]) => Object.fromEntries(objects.map((o) => [o.id, o.action]));
const recordOf = (s: Stack): LastApplied => ({ version: 1, objects: Object.fromEntries([...desiredOf(s).objects.values()].map((d) => [d.id, recordedFrom(d)])) });

/** The rows whose first step applies a stack and whose next step states every front end's actions. */
const rows = SCENARIOS.flatMap((s) => {
  const [first, second] = s.steps as [Step, Step];
  return first && 'apply' in first && second && 'actions' in second ? [[s.name, first.apply, second] as const] : [];
});

test('the table has rows with actions observed on a server', () => {
  expect(rows.length).toBeGreaterThanOrEqual(3);
});

describe.each(rows)('%s', (_name, applied, step) => {
  test("keyward plan (keyward's record, keyed by path)", () => {
    const desired = desiredOf(step.actions);
    const { objects } = diff(desired, movedView(serverAfter(applied), desired), recordOf(applied));
    expect(actionsOf(objects)).toEqual(step.cli ?? step.expect);
  });

  test("keyward show of Terraform's saved plan", () => {
    const plan = backendPlan(backendAttributes(applied), backendAttributes(step.actions));
    expect(actionsOf(planFromTerraformJson(JSON.stringify(plan), 'tfplan.json').objects)).toEqual(step.expect);
  });

  test("the PR plan (Terraform's state as the record)", () => {
    const state = recordFromState(backendState(backendAttributes(applied)));
    // The state's resource `b` and the synthesized stack's `b` (stack-state.ts movesFromState).
    const moves: [string, string][] = applied.path !== step.actions.path ? [[step.actions.path, applied.path]] : [];
    const desired = withRecordFacts(desiredOf({ ...step.actions, movedFrom: undefined }), { retained: state.retained, moves });
    const { objects } = diff(desired, movedView(serverAfter(applied), desired), state.record);
    expect(actionsOf(objects)).toEqual(step.expect);
  });
});
