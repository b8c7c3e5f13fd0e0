// Drives hashi-vault-js against an engine and prints what it saw as one JSON line. The library is
// ES-module only and does not load in Jest's CommonJS runtime, so the client-libraries test runs
// this script in a child process (asynchronously: the engine lives in the test's own event loop).
//
// Input (environment): KW_URL (engine base URL), KW_TOKEN (root token), KW_JWT (a signed service
// account JWT for the role KW_ROLE on the cloud mount).
//
// hashi-vault-js has token and Kubernetes-style login calls, but no sys/auth, sys/policy, cloud
// role or raft snapshot calls: those go through `vault.instance`, the library's own configured
// HTTP client (base URL, timeout, headers), with the paths and methods Vault's API documents.

import Vault from 'hashi-vault-js';

const { KW_URL, KW_TOKEN, KW_JWT, KW_ROLE } = process.env;
const vault = new Vault({ baseUrl: `${KW_URL}/v1`, timeout: 30000 });
const root = { 'X-Vault-Token': KW_TOKEN };
const raw = (method, url, data, extra = {}) => vault.instance({ method, url, data, headers: root, ...extra });

const out = {};
try {
  // Token: create, lookup, renew (by accessor-free token calls and the -self variants), revoke.
  const created = await vault.createToken(KW_TOKEN, { policies: ['default'], ttl: '1h' });
  out.created = { client_token: created.client_token, policies: created.policies, renewable: created.renewable };
  out.lookup = await vault.lookupToken(KW_TOKEN, created.client_token);
  out.lookupSelf = await vault.lookupSelfToken(created.client_token);
  out.renew = await vault.renewToken(KW_TOKEN, created.client_token, '2h');
  out.renewSelf = await vault.renewSelfToken(created.client_token, '1h');
  out.revoke = await vault.revokeToken(KW_TOKEN, created.client_token);
  out.afterRevoke = await vault.lookupSelfToken(created.client_token).then(
    () => 'still valid',
    (e) => e.response?.status,
  );
  const self = await vault.createToken(KW_TOKEN, { policies: ['default'], ttl: '1h' });
  await vault.revokeSelfToken(self.client_token);
  out.afterRevokeSelf = await vault.lookupSelfToken(self.client_token).then(
    () => 'still valid',
    (e) => e.response?.status,
  );

  // Token accessors: list, lookup, renew, revoke.
  const byAccessor = await vault.createToken(KW_TOKEN, { policies: ['default'], ttl: '1h' });
  out.accessor = byAccessor.accessor;
  out.accessorList = (await vault.listAccessors(KW_TOKEN)).keys;
  out.accessorLookup = await vault.lookupAccessor(KW_TOKEN, byAccessor.accessor);
  out.accessorRenew = await vault.renewAccessor(KW_TOKEN, byAccessor.accessor, '2h');
  await vault.revokeAccessor(KW_TOKEN, byAccessor.accessor);
  out.afterRevokeAccessor = await vault.lookupSelfToken(byAccessor.client_token).then(
    () => 'still valid',
    (e) => e.response?.status,
  );

  // Mount (no sys/auth calls in the library): enable, list, disable.
  await raw('post', '/sys/auth/hv', { type: 'cloud', description: 'from hashi-vault-js' });
  out.auths = (await raw('get', '/sys/auth')).data;
  await raw('delete', '/sys/auth/hv');
  out.authsAfterDisable = Object.keys((await raw('get', '/sys/auth')).data.data);

  // Policy (no sys/policy calls in the library): write, read, list, capabilities of a token holding it.
  const rules = 'path "sys/auth" { capabilities = ["read"] }';
  await raw('put', '/sys/policies/acl/hv-reader', { policy: rules });
  out.policy = (await raw('get', '/sys/policies/acl/hv-reader')).data.data;
  out.policyList = (await raw('list', '/sys/policies/acl')).data.data.keys;
  const reader = await vault.createToken(KW_TOKEN, { policies: ['hv-reader'], ttl: '10m' });
  out.capabilities = await vault.sysCapabilitiesSelf(reader.client_token, ['sys/auth']);

  // Login: the cloud method takes {role, jwt} at <mount>/login, as Vault's Kubernetes method does,
  // so the library's loginWithK8s with the mount path is a real library login call.
  const login = await vault.loginWithK8s(KW_ROLE, KW_JWT, 'auth/cloud');
  out.login = { client_token: login.client_token, policies: login.policies, metadata: login.metadata };
  out.loginLookup = await vault.lookupSelfToken(login.client_token);

  // Snapshot (no raft calls in the library): save an archive, make a change, restore, and see the
  // change gone. The archive is binary, so the response is read as bytes.
  const saved = await raw('get', '/sys/storage/raft/snapshot', undefined, { responseType: 'arraybuffer' });
  out.snapshotBytes = saved.data.byteLength;
  out.snapshotGzip = Buffer.from(saved.data).subarray(0, 2).toString('hex');
  await raw('put', '/sys/policies/acl/hv-after-save', { policy: rules });
  const restored = await raw('post', '/sys/storage/raft/snapshot', Buffer.from(saved.data), {
    headers: { ...root, 'Content-Type': 'application/octet-stream' },
  });
  out.restoreStatus = restored.status;
  out.policiesAfterRestore = (await raw('list', '/sys/policies/acl')).data.data.keys;
} catch (e) {
  out.error = { message: e.message, status: e.response?.status, body: e.response?.data };
}
process.stdout.write(`${JSON.stringify(out)}\n`);
