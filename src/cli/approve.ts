// Terraform's approval flow for apply and destroy: on a terminal, show the plan and accept only
// "yes"; --auto-approve skips the question; without a terminal and without --auto-approve, refuse
// before anything is read or written (as `terraform apply -input=false` does).

import { createInterface } from 'node:readline';

export interface ApprovalIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
}

const stdio = (): ApprovalIo => ({ input: process.stdin, output: process.stdout });

export type Operation = 'apply' | 'destroy';

/** Throws, before any work, when approval is needed and cannot be asked for. */
export function requireApprovalPossible(op: Operation, autoApprove: boolean | undefined, io: ApprovalIo = stdio()): void {
  if (autoApprove || io.input.isTTY) return;
  throw new Error(
    `keyward ${op} asks for approval before changing the server, but no terminal is attached to stdin: ` +
      `pass --auto-approve to ${op} without asking${op === 'apply' ? ', or apply a reviewed plan with --plan FILE' : ''}. Nothing was changed.`,
  );
}

const QUESTION: Record<Operation, string> = {
  apply: "Do you want to perform these actions?\n  keyward will perform the actions described above.\n  Only 'yes' will be accepted to approve.\n",
  destroy:
    "Do you really want to destroy all objects this stack manages?\n  keyward will delete the objects shown above. There is no undo.\n  Only 'yes' will be accepted to confirm.\n",
};

/** Asks on the terminal; true only for the answer "yes". */
export async function askApproval(op: Operation, io: ApprovalIo = stdio()): Promise<boolean> {
  io.output.write('\n' + QUESTION[op] + '\n');
  const rl = createInterface({ input: io.input, output: io.output, terminal: false });
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      io.output.write('  Enter a value: ');
      rl.once('line', resolve);
      rl.once('close', () => resolve(undefined));
    });
    io.output.write('\n');
    return answer?.trim() === 'yes';
  } finally {
    rl.close();
  }
}

export const cancelledMessage = (op: Operation) => `${op === 'apply' ? 'Apply' : 'Destroy'} cancelled.`;
