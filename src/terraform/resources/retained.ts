// What a destroy plan of a resource with retain_on_destroy (RemovalPolicy.RETAIN) says besides
// Terraform's "will be destroyed": the object stays on the server.

import type { Diagnostic, ObjectValue } from '../plugin/contract';

/** Terraform prints "will be destroyed" for a retained object too: say that the server keeps it. */
export function retainedWarnings(what: string, stays: string, prior: ObjectValue | null): Diagnostic[] {
  if (prior?.retain_on_destroy !== true) return [];
  return [
    {
      severity: 'warning',
      summary: `${what} stays on the server (retain_on_destroy)`,
      detail: `This resource sets retain_on_destroy (RemovalPolicy.RETAIN): destroying it only removes it from Terraform's state; the ${stays} on the server, no longer managed.`,
    },
  ];
}
