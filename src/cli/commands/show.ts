// `keyward show FILE`: renders Terraform's own plan (`terraform show -json tfplan`, or `-` for stdin)
// in keyward's formats, so a pull-request comment shows what applying that saved plan will do.

import type { Command } from 'commander';
import { Option } from 'commander';

interface ShowFlags {
  format: 'text' | 'markdown' | 'json';
  detailedExitcode?: boolean;
  applyCommand: string;
}

export function registerShow(program: Command): void {
  program
    .command('show')
    .description("Render a saved Terraform plan's JSON (terraform show -json tfplan) as keyward's plan: text, Markdown or JSON")
    .argument('<file>', 'the JSON of `terraform show -json <saved plan>`, or - for standard input')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
    .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are, 1 on error')
    .option('--apply-command <command>', 'the command the Markdown names for applying the plan', 'terraform apply tfplan')
    .action(async (file: string, flags: ShowFlags) => {
      const { runShow } = require('./show-run') as typeof import('./show-run');
      process.exitCode = runShow(file, flags);
    });
}
