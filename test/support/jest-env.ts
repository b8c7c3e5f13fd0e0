// Set for every test file before it runs. cdktf points Terraform at the machine-wide plugin cache
// (~/.terraform.d/plugin-cache); another checkout's keyward launcher of the same version there has
// other bytes, and Terraform then refuses it ("cached package ... does not match"). Stacks install
// keyward's provider from their own terraform.d/plugins, so tests need no cache.
process.env.CDKTF_DISABLE_PLUGIN_CACHE_ENV = '1';
