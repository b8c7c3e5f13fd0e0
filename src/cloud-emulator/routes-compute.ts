// The emulator's Compute Engine and Resource Manager endpoints: instances.get, instance-group
// aggregated lists (paged) and membership, and project ancestry.

import { ancestry } from './description';
import { findAccount } from './mint';
import { HttpError, readBody, type EmulatorRoute, type EmulatorScope } from './http';

const selfLinkPath = (i: { project: string; zone: string; name: string }) => `projects/${i.project}/zones/${i.zone}/instances/${i.name}`;

export function computeRoutes(x: EmulatorScope): EmulatorRoute[] {
  return [
    [
      'instance-get',
      'GET',
      /^\/compute\/v1\/projects\/([^/]+)\/zones\/([^/]+)\/instances\/([^/]+)$/,
      (m, req) => {
        x.checkAuth(req);
        const i = x.d.instances.find((x) => x.project === m[1] && x.zone === m[2] && x.name === m[3]);
        if (!i) throw new HttpError(404, `The resource 'projects/${m[1]}/zones/${m[2]}/instances/${m[3]}' was not found`);
        const sa = findAccount(x.d, i.serviceAccount)!;
        return {
          kind: 'compute#instance',
          id: i.id,
          name: i.name,
          creationTimestamp: i.creationTimestamp,
          zone: `${x.computeBase()}projects/${i.project}/zones/${i.zone}`,
          status: i.status,
          labels: i.labels,
          selfLink: x.computeBase() + selfLinkPath(i),
          serviceAccounts: [{ email: sa.email, scopes: ['https://www.googleapis.com/auth/cloud-platform'] }],
        };
      },
    ],
    [
      'groups-aggregated',
      'GET',
      /^\/compute\/v1\/projects\/([^/]+)\/aggregated\/instanceGroups$/,
      (m, req, q) => {
        x.checkAuth(req);
        if (!x.d.projects.some((p) => p.id === m[1])) throw new HttpError(404, `project ${m[1]} not found`);
        const all = x.d.instanceGroups.filter((g) => g.project === m[1]);
        const start = Number(q.get('pageToken') ?? '0') || 0;
        const page = all.slice(start, start + x.pageSize);
        const items: Record<string, { instanceGroups: { name: string }[] }> = {};
        for (const g of page) {
          const scope = g.zone ? `zones/${g.zone}` : `regions/${g.region}`;
          (items[scope] ??= { instanceGroups: [] }).instanceGroups.push({ name: g.name });
        }
        const next = start + x.pageSize < all.length ? { nextPageToken: String(start + x.pageSize) } : {};
        return { kind: 'compute#instanceGroupAggregatedList', items, ...next };
      },
    ],
    [
      'group-list-instances',
      'POST',
      /^\/compute\/v1\/projects\/([^/]+)\/(zones|regions)\/([^/]+)\/instanceGroups\/([^/]+)\/listInstances$/,
      async (m, req, q) => {
        x.checkAuth(req);
        await readBody(req);
        const g = x.d.instanceGroups.find((x) => x.project === m[1] && x.name === m[4] && (m[2] === 'zones' ? x.zone === m[3] : x.region === m[3]));
        if (!g) throw new HttpError(404, `The resource 'projects/${m[1]}/${m[2]}/${m[3]}/instanceGroups/${m[4]}' was not found`);
        const filter = /^instance eq (.+)$/.exec(q.get('filter') ?? '');
        const members = g.instances
          .map((n) => x.d.instances.find((i) => i.project === g.project && i.name === n)!)
          .filter((i) => !filter || filter[1].trim().endsWith('/' + selfLinkPath(i)));
        return { kind: 'compute#instanceGroupsListInstances', items: members.map((i) => ({ instance: x.computeBase() + selfLinkPath(i), status: i.status })) };
      },
    ],
    [
      'ancestry',
      'POST',
      /^\/v1\/projects\/([^/:]+):getAncestry$/,
      async (m, req) => {
        x.checkAuth(req);
        await readBody(req);
        const a = ancestry(x.d, decodeURIComponent(m[1]));
        if (!a) throw new HttpError(403, `The caller does not have permission on project ${m[1]}`);
        return { ancestor: a.map((x) => ({ resourceId: x })) };
      },
    ],
  ];
}
