// The flag types the reconciling commands' work reads, derived from the command table
// (command-table.ts): nothing here is declared twice. Commander only, like the table.

import type { Command } from 'commander';
import { addFlag, type CommandFlags, type FlagsOf } from './command-table';

export type DialectFlags = FlagsOf<'dialect'>;
export type ConnectionFlags = FlagsOf<'dialect' | 'address' | 'snapshotAddress' | 'cloudPlugin' | 'namespace' | 'caCert' | 'tlsSkipVerify'> & { parallelism?: string };
export type ApproveFlags = FlagsOf<'autoApprove'>;
export type ResendFlags = FlagsOf<'resend'>;
export type Format = CommandFlags<'plan'>['format'];
export type SourceFlags = FlagsOf<'manifest' | 'dir' | 'app' | 'stack' | 'lastApplied' | 'lastAppliedEnv' | 'record'>;
export type PlanFlags = CommandFlags<'plan'>;
export type ApplyFlags = CommandFlags<'apply'>;
export type DestroyFlags = CommandFlags<'destroy'>;
export type ImportCommandFlags = CommandFlags<'import'>;

/** `keyward status` declares its own flags but shares --dialect. */
export function addDialectOption(c: Command): Command {
  return addFlag(c, 'dialect');
}
