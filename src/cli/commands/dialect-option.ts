// The --dialect flag (plan, apply, destroy, import, status) and --show-server-names (plan): which
// names the server speaks, and whether a plan is shown in them.

import { Option, type Command } from 'commander';
import { SERVER_DIALECTS, type ServerDialect } from '../../client/options';

export interface DialectFlags {
  dialect?: ServerDialect;
}

export function addDialectOption(c: Command): Command {
  return c.addOption(
    new Option('--dialect <dialect>', "names the server speaks: keyward (the embedded engine) or vault (Vault Enterprise, OpenBao) (default: $KEYWARD_DIALECT, then the manifest's server.dialect, then detected from sys/health)").choices([
      ...SERVER_DIALECTS,
    ]),
  );
}

export function addShowServerNamesOption(c: Command): Command {
  return c.option('--show-server-names', "show field names and values as the server spells them (Vault's gce_*, aws_s3_*, …) instead of keyward's");
}
