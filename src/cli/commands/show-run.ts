// The work of `keyward show`, loaded only when it runs.

import { readFileSync } from 'node:fs';
import { resolveAddress } from '../../client/server-address';
import { hasChanges } from '../../reconcile/model';
import { planFromTerraformJson, UNDECLARED_ADDRESS } from '../../terraform-state/terraform-plan';
import { expectDigest, failOnGate, failOnLabels } from '../review-gates';
import { render } from './plan-run';

export function runShow(
  file: string,
  flags: { format: 'text' | 'markdown' | 'json'; detailedExitcode?: boolean; applyCommand: string; failOn?: string; expectDigest?: string },
  write: (s: string) => void = (s) => process.stdout.write(s),
): number {
  const failOn = failOnLabels(flags.failOn);
  const text = readFileSync(file === '-' ? 0 : file, 'utf8');
  const plan = planFromTerraformJson(text, file === '-' ? 'standard input' : file);
  // A provider block without an address sends the plan where VAULT_ADDR says (resolved as the provider and
  // `keyward plan` resolve it); naming that server keeps the reviewed-plan digest equal to the PR plan's.
  if (plan.server.address === UNDECLARED_ADDRESS) plan.server.address = resolveAddress(undefined, undefined, process.env).address;
  write(render(plan, flags.format, flags.applyCommand));
  expectDigest(plan, flags.expectDigest);
  return failOnGate(plan, failOn) ?? (flags.detailedExitcode && hasChanges(plan) ? 2 : 0);
}
