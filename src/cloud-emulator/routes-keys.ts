// IAM service-account key administration (projects.serviceAccounts.keys list, create, delete), as
// root credential rotation uses it: a created key is a working key file at once (its token_uri is
// this emulator), a deleted key leaves the key documents and is refused by the token endpoint.

import { HttpError, type EmulatorRoute, type EmulatorScope } from './http';
import { keyFile, newKey, type SigningKey } from './keys';

const ALG = 'KEY_ALG_RSA_2048';
const KEY_FILE_TYPE = 'TYPE_GOOGLE_CREDENTIALS_FILE';

export function keyRoutes(x: EmulatorScope): EmulatorRoute[] {
  const describe = (project: string, email: string, k: SigningKey, type: 'USER_MANAGED' | 'SYSTEM_MANAGED') => ({
    name: `projects/${project}/serviceAccounts/${email}/keys/${k.kid}`,
    validAfterTime: '2020-01-01T00:00:00Z',
    validBeforeTime: '9999-12-31T23:59:59Z',
    keyAlgorithm: ALG,
    keyOrigin: 'GOOGLE_PROVIDED',
    keyType: type,
  });
  return [
    [
      'iam-keys-list',
      'GET',
      /^\/v1\/projects\/[^/]+\/serviceAccounts\/([^/:]+)\/keys$/,
      (m, req, q) => {
        x.checkAuth(req);
        const sa = x.liveAccount(m[1]);
        const k = x.keys.accounts.get(sa.email)!;
        const types = q.getAll('keyTypes');
        const all = [
          ...k.user.filter((u) => !x.keyDeleted(u.kid)).map((u) => describe(sa.project, sa.email, u, 'USER_MANAGED')),
          describe(sa.project, sa.email, k.system, 'SYSTEM_MANAGED'),
        ];
        return { keys: types.length === 0 ? all : all.filter((d) => types.includes(d.keyType)) };
      },
    ],
    [
      'iam-keys-create',
      'POST',
      /^\/v1\/projects\/[^/]+\/serviceAccounts\/([^/:]+)\/keys$/,
      async (m, req) => {
        x.checkAuth(req);
        const sa = x.liveAccount(m[1]);
        if (sa.disabled) throw new HttpError(400, `service account ${sa.email} is disabled`);
        const k = x.keys.accounts.get(sa.email)!;
        if (k.user.filter((u) => !x.keyDeleted(u.kid)).length >= 10) throw new HttpError(400, 'Precondition check failed: a service account has at most 10 keys');
        const key = await newKey(sa.email, new Date(Date.UTC(2020, 0, 1)));
        k.user.push(key);
        x.records.keyEvents.push({ at: x.now(), action: 'create', serviceAccount: sa.email, kid: key.kid });
        const file = keyFile(sa, key, x.tokenUri());
        return {
          ...describe(sa.project, sa.email, key, 'USER_MANAGED'),
          privateKeyType: KEY_FILE_TYPE,
          privateKeyData: Buffer.from(JSON.stringify(file)).toString('base64'),
        };
      },
    ],
    [
      'iam-keys-delete',
      'DELETE',
      /^\/v1\/projects\/[^/]+\/serviceAccounts\/([^/:]+)\/keys\/([^/]+)$/,
      (m, req) => {
        x.checkAuth(req);
        const sa = x.liveAccount(m[1]);
        const kid = decodeURIComponent(m[2]);
        const k = x.keys.accounts.get(sa.email)!;
        if (!k.user.some((u) => u.kid === kid) || x.keyDeleted(kid)) throw new HttpError(404, `Service account key ${kid} does not exist.`);
        x.deleteKey(kid);
        x.records.keyEvents.push({ at: x.now(), action: 'delete', serviceAccount: sa.email, kid });
        return {};
      },
    ],
  ];
}
