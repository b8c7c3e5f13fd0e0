// Drives the provider process as Terraform does: magic cookie, PLUGIN_CLIENT_CERT auto-mTLS, the
// handshake line, then tfplugin6 over the unix socket (schema, configure, plan, apply, read,
// import, diagnostics) and GRPCController.Shutdown. Uses the toy provider from test/support.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import * as grpc from '@grpc/grpc-js';
import { generateServerCertificate } from '../../../src/terraform/plugin/auto-mtls';
import { UNKNOWN, type ObjectValue, type ValueType } from '../../../src/terraform/plugin/contract';
import { blockType } from '../../../src/terraform/plugin/cty-type';
import { MAGIC_COOKIE_VALUE } from '../../../src/terraform/plugin/handshake';
import { decodeValue, encodeValue } from '../../../src/terraform/plugin/msgpack-codec';
import { loadProtos } from '../../../src/terraform/plugin/protos';
import { toyProvider } from '../../support/toy-provider/toy-provider';

const ENTRY = resolve(__dirname, '..', '..', 'support', 'toy-provider', 'main.js');
const OPTS = { 'grpc.ssl_target_name_override': 'localhost', 'grpc.default_authority': 'localhost' };
const toyType = blockType(toyProvider().resources[0]!.schema) as ValueType;
/** The handshake's certificate (DER, base64 without padding) as PEM. */
const serverPem = (raw: string) =>
  Buffer.from(
    `-----BEGIN CERTIFICATE-----\n${Buffer.from(raw, 'base64')
      .toString('base64')
      .replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`,
  );
type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the provider process, driven as Terraform drives it', () => {
  let child: ChildProcess;
  let client: grpc.Client & Record<string, (req: Wire, cb: (err: Error | null, res: Wire) => void) => void>;
  let controller: grpc.Client & Record<string, (req: Wire, cb: (err: Error | null, res: Wire) => void) => void>;
  let handshake: string[];
  let dir: string;
  const call = (method: string, req: Wire): Promise<Wire> => new Promise((ok, fail) => client[method]!(req, (err, res) => (err ? fail(err) : ok(res))));
  const dv = (value: ObjectValue | null) => ({ msgpack: Buffer.from(encodeValue(value, toyType)) });
  const value = (d: Wire) => decodeValue(d.msgpack, toyType) as ObjectValue | null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'keyward-protocol-'));
    const hostCert = await generateServerCertificate();
    child = spawn(process.execPath, [ENTRY], {
      env: {
        ...process.env,
        TF_PLUGIN_MAGIC_COOKIE: MAGIC_COOKIE_VALUE,
        PLUGIN_PROTOCOL_VERSIONS: '5,6',
        PLUGIN_CLIENT_CERT: hostCert.certPem,
        PLUGIN_UNIX_SOCKET_DIR: dir,
        KEYWARD_TOY_STORE: '',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((ok) => createInterface({ input: child.stdout! }).once('line', ok));
    handshake = line.split('|');
    const protos = loadProtos();
    const creds = grpc.credentials.createSsl(serverPem(handshake[5]!), Buffer.from(hostCert.keyPem), Buffer.from(hostCert.certPem));
    client = new protos.provider(`unix:${handshake[3]}`, creds, OPTS) as typeof client;
    controller = new protos.controller(`unix:${handshake[3]}`, creds, OPTS) as typeof controller;
  });
  afterAll(async () => {
    client?.close();
    if (child.exitCode === null) child.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses to run without the magic cookie, with go-plugin's message", () => {
    const run = spawnSync(process.execPath, [ENTRY], { env: { ...process.env, TF_PLUGIN_MAGIC_COOKIE: 'nope' }, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('This binary is a plugin. These are not meant to be executed directly.');
  });

  it('prints the handshake line: core 1, protocol 6, unix socket, grpc, server certificate', () => {
    expect(handshake.slice(0, 3)).toEqual(['1', '6', 'unix']);
    expect(handshake[3]!.startsWith(dir)).toBe(true);
    expect(handshake[4]).toBe('grpc');
    expect(handshake[5]).toMatch(/^[A-Za-z0-9+/]+$/); // RawStdEncoding: no padding
  });

  it('rejects a client without the host certificate', async () => {
    const other = await generateServerCertificate();
    const creds = grpc.credentials.createSsl(serverPem(handshake[5]!), Buffer.from(other.keyPem), Buffer.from(other.certPem));
    const stranger = new (loadProtos().provider)(`unix:${handshake[3]}`, creds) as typeof client;
    await expect(new Promise((ok, fail) => stranger.GetProviderSchema!({}, (err, res) => (err ? fail(err) : ok(res))))).rejects.toThrow();
    stranger.close();
  });

  it('serves the schema with nested, computed and write-only attributes and plan_destroy', async () => {
    // Terraform asks for the schema once per command and reuses it for its later provider starts.
    const capabilities = { plan_destroy: true, get_provider_schema_optional: true, move_resource_state: false };
    expect((await call('GetMetadata', {})).server_capabilities).toEqual(capabilities);
    const res = await call('GetProviderSchema', {});
    expect(res.server_capabilities).toEqual(capabilities);
    const attrs = res.resource_schemas.keyward_toy.block.attributes as Wire[];
    const byName = Object.fromEntries(attrs.map((a) => [a.name, a]));
    expect(byName.secret_wo).toMatchObject({ write_only: true, sensitive: true, optional: true });
    expect(byName.generation).toMatchObject({ computed: true });
    expect(JSON.parse(byName.name.type.toString())).toBe('string');
    expect(byName.items.nested_type.nesting).toBe(4);
  });

  it('configures, plans, applies, reads and imports', async () => {
    expect(
      (await call('ValidateProviderConfig', { config: { msgpack: Buffer.from(encodeValue({ prefix: 'bad', token: null }, blockType(toyProvider().schema))) } })).diagnostics[0]
        .attribute.steps[0].attribute_name,
    ).toBe('prefix');
    expect((await call('ConfigureProvider', { config: { msgpack: Buffer.from(encodeValue({ prefix: 'p', token: null }, blockType(toyProvider().schema))) } })).diagnostics).toEqual(
      [],
    );
    const config: ObjectValue = {
      name: 'alpha',
      items: { one: { value: '1', note: null, serial: null } },
      generation: null,
      secret_wo: 's3cret',
      secret_wo_version: 1,
      secret_length: null,
    };
    const proposed: ObjectValue = { ...config, secret_wo: null, items: { one: { value: '1', note: null, serial: UNKNOWN } }, generation: UNKNOWN, secret_length: UNKNOWN };
    const plan = await call('PlanResourceChange', { type_name: 'keyward_toy', prior_state: dv(null), proposed_new_state: dv(proposed), config: dv(config) });
    expect(plan.diagnostics).toEqual([]);
    const planned = value(plan.planned_state)!;
    expect(planned.generation).toBe(UNKNOWN);
    expect(planned.secret_wo).toBeNull();
    const apply = await call('ApplyResourceChange', { type_name: 'keyward_toy', prior_state: dv(null), planned_state: plan.planned_state, config: dv(config) });
    const state = value(apply.new_state)!;
    expect(state).toMatchObject({ name: 'alpha', generation: 1, secret_length: 6, secret_wo: null });
    const read = await call('ReadResource', { type_name: 'keyward_toy', current_state: apply.new_state });
    expect(value(read.new_state)).toEqual(state);
    const imported = await call('ImportResourceState', { type_name: 'keyward_toy', id: 'alpha' });
    expect(value(imported.imported_resources[0].state)).toEqual(state);
    const destroy = await call('PlanResourceChange', { type_name: 'keyward_toy', prior_state: apply.new_state, proposed_new_state: dv(null), config: dv(null) });
    expect(value(destroy.planned_state)).toBeNull();
  });

  it('turns handler failures into diagnostics with the attribute path and keeps the prior state', async () => {
    const config: ObjectValue = { name: 'fail-x', items: null, generation: null, secret_wo: null, secret_wo_version: null, secret_length: null };
    const apply = await call('ApplyResourceChange', {
      type_name: 'keyward_toy',
      prior_state: dv(null),
      planned_state: dv({ ...config, generation: UNKNOWN, secret_length: UNKNOWN }),
      config: dv(config),
    });
    expect(apply.diagnostics[0]).toMatchObject({ severity: 1, summary: 'The toy server refused the name' });
    expect(apply.diagnostics[0].attribute.steps[0].attribute_name).toBe('name');
    expect(value(apply.new_state)).toBeNull();
    const unknownType = await call('ImportResourceState', { type_name: 'keyward_nope', id: 'x' });
    expect(unknownType.diagnostics[0].summary).toContain('keyward_nope');
    expect((await call('GetFunctions', {})).functions).toEqual({});
  });

  it('exits on GRPCController.Shutdown', async () => {
    const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
    await new Promise((ok, fail) => controller.Shutdown!({}, (err, res) => (err ? fail(err) : ok(res))));
    expect(await exited).toBe(0);
  });
});
