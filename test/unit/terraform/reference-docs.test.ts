// The reference pages under docs/ are what `npm run docs:generate` writes from the provider schema
// (regenerated here in memory), in terraform-plugin-docs' layout; every attribute and block of the
// schema GetProviderSchema returns has a description, sent as markdown.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedPages, REPO } from '../../../scripts/generate-docs';
import type { BlockSchema, ResourceHandler } from '../../../src/terraform/plugin/contract';
import { providerSchemas, type WireBlock } from '../../../src/terraform/plugin/schema-wire';
import { plainMarkdown, referencePages } from '../../../src/terraform/docs/reference-pages';
import { renderSchemaMarkdown } from '../../../src/terraform/docs/schema-markdown';
import { schemaToWire } from '../../../src/terraform/plugin/schema-wire';
import { keywardProvider } from '../../../src/terraform/keyward-provider';

describe('docs/ is up to date with the provider schema', () => {
  const pages = generatedPages();

  test.each([...pages.keys()])('%s matches `npm run docs:generate`', (path) => {
    let onDisk: string;
    try {
      onDisk = readFileSync(join(REPO, path), 'utf8');
    } catch {
      throw new Error(`${path} is missing: run npm run docs:generate`);
    }
    // toBe on the whole text shows the first differing line; the message says how to fix it.
    if (onDisk !== pages.get(path)) expect({ path, fix: 'npm run docs:generate', text: onDisk }).toEqual({ path, fix: 'npm run docs:generate', text: pages.get(path) });
  });

  test('docs/resources holds a page per registered resource and nothing else', () => {
    const onDisk = readdirSync(join(REPO, 'docs', 'resources'))
      .map((f) => `docs/resources/${f}`)
      .sort();
    expect(onDisk).toEqual([...pages.keys()].filter((p) => p.startsWith('docs/resources/')).sort());
    expect(onDisk).toEqual(
      expect.arrayContaining(['docs/resources/cloud_auth_backend.md', 'docs/resources/snapshot_auto_config.md', 'docs/resources/exclusive_snapshot_configs.md']),
    );
  });
});

describe('descriptions', () => {
  const schemas = providerSchemas(keywardProvider({ env: {} }));
  const missing = (where: string, b: WireBlock): string[] => [
    ...(b.description.trim() ? [] : [`${where} (block)`]),
    ...(b.description_kind === 1 ? [] : [`${where} (block kind)`]),
    ...b.attributes.flatMap((a) => [...(a.description.trim() ? [] : [`${where}.${a.name}`]), ...(a.description_kind === 1 ? [] : [`${where}.${a.name} (kind)`])]),
    ...b.block_types.flatMap((t) => missing(`${where}.${t.type_name}`, t.block)),
  ];

  test('every attribute and block of the provider and of every resource has a markdown description', () => {
    const all = [missing('provider', schemas.provider.block), ...Object.entries(schemas.resource_schemas).map(([t, s]) => missing(t, s.block))].flat();
    expect(all).toEqual([]);
  });

  test('descriptions hold no bare <word> (markdown would take it for an HTML tag)', () => {
    const bare: string[] = [];
    const scan = (where: string, b: WireBlock) => {
      for (const d of [b.description, ...b.attributes.map((a) => a.description)]) if (/<[a-z]/.test(d.replace(/`[^`]*`/g, ''))) bare.push(`${where}: ${d}`);
      for (const t of b.block_types) scan(`${where}.${t.type_name}`, t.block);
    };
    scan('provider', schemas.provider.block);
    for (const [t, s] of Object.entries(schemas.resource_schemas)) scan(t, s.block);
    expect(bare).toEqual([]);
  });
});

describe('the schema section, as terraform-plugin-docs renders it', () => {
  const schema: BlockSchema = {
    version: 0,
    description: 'A thing.',
    attributes: {
      name: { type: { kind: 'string' }, required: true, description: 'The `name`.' },
      tags: { type: { kind: 'set', element: { kind: 'string' } }, optional: true, description: 'Tags.' },
      secret_wo: { type: { kind: 'string' }, optional: true, sensitive: true, writeOnly: true, description: 'A secret.' },
      id: { type: { kind: 'string' }, computed: true, description: 'Assigned.' },
      limits: { nested: { nesting: 'single', attributes: { max: { type: { kind: 'number' }, optional: true, description: 'Most.' } } }, optional: true, description: 'Limits.' },
    },
    blocks: {
      item: {
        nesting: 'map',
        description: 'Items by key.',
        attributes: { value: { type: { kind: 'bool' }, required: true, description: 'On.' }, seen: { type: { kind: 'number' }, computed: true, description: 'Count.' } },
      },
      one: { nesting: 'single', minItems: 1, maxItems: 1, attributes: { x: { type: { kind: 'map', element: { kind: 'string' } }, optional: true, description: 'X.' } } },
    },
  };

  test('groups, types, flags, anchors and nested sections', () => {
    expect(renderSchemaMarkdown(schemaToWire(schema).block)).toBe(
      [
        '## Schema',
        '',
        '### Required',
        '',
        '- `name` (String) The `name`.',
        '- `one` (Block, Required, Max: 1) (see [below for nested schema](#nestedblock--one))',
        '',
        '### Optional',
        '',
        '> **NOTE**: [Write-only arguments](https://developer.hashicorp.com/terraform/language/resources/ephemeral#write-only-arguments) are supported in Terraform 1.11 and later.',
        '',
        '- `item` (Block Map) Items by key. (see [below for nested schema](#nestedblock--item))',
        '- `limits` (Attributes) Limits. (see [below for nested schema](#nestedatt--limits))',
        '- `secret_wo` (String, Sensitive, [Write-only](https://developer.hashicorp.com/terraform/language/resources/ephemeral#write-only-arguments)) A secret.',
        '- `tags` (Set of String) Tags.',
        '',
        '### Read-Only',
        '',
        '- `id` (String) Assigned.',
        '',
        '<a id="nestedblock--one"></a>',
        '### Nested Schema for `one`',
        '',
        'Optional:',
        '',
        '- `x` (Map of String) X.',
        '',
        '<a id="nestedblock--item"></a>',
        '### Nested Schema for `item`',
        '',
        'Required:',
        '',
        '- `value` (Boolean) On.',
        '',
        'Read-Only:',
        '',
        '- `seen` (Number) Count.',
        '',
        '<a id="nestedatt--limits"></a>',
        '### Nested Schema for `limits`',
        '',
        'Optional:',
        '',
        '- `max` (Number) Most.',
        '',
      ].join('\n'),
    );
  });

  test('a resource the provider registers gets its page, example and import sections from examples/resources/<type>/', () => {
    const extra: ResourceHandler = { typeName: 'keyward_thing', schema, read: jest.fn(), plan: jest.fn(), apply: jest.fn(), import: jest.fn() };
    const files: Record<string, string> = {
      'examples/provider/provider.tf': 'provider "keyward" {}\n',
      'examples/resources/keyward_thing/resource.tf': '\nresource "keyward_thing" "x" {\n  name = "a"\n}\n\n',
      'examples/resources/keyward_thing/import.sh': 'terraform import keyward_thing.x a\n',
    };
    const pages = referencePages({ schema: { version: 0, description: 'P.', attributes: {} }, resources: [extra] }, (p) => files[p]);
    expect([...pages.keys()]).toEqual(['docs/index.md', 'docs/resources/thing.md']);
    const page = pages.get('docs/resources/thing.md')!;
    expect(page.startsWith('---\n# generated by scripts/generate-docs.ts')).toBe(true);
    expect(page).toContain(
      'page_title: "keyward_thing Resource - keyward"\nsubcategory: ""\ndescription: |-\n  A thing.\n---\n\n# keyward_thing (Resource)\n\nA thing.\n\n## Example Usage\n\n```terraform\nresource "keyward_thing" "x" {\n  name = "a"\n}\n```\n\n<!-- schema generated by scripts/generate-docs.ts -->\n## Schema\n',
    );
    expect(page.endsWith('## Import\n\nImport is supported using the following syntax:\n\n```shell\nterraform import keyward_thing.x a\n```\n')).toBe(true);
    expect(pages.get('docs/index.md')).toContain('## Resources\n\n- [`keyward_thing`](resources/thing.md)\n');
  });

  test('without an example or import file the page has no such section', () => {
    const extra: ResourceHandler = { typeName: 'keyward_thing', schema, read: jest.fn(), plan: jest.fn(), apply: jest.fn(), import: jest.fn() };
    const page = referencePages({ schema: { version: 0, attributes: {} }, resources: [extra] }, () => undefined).get('docs/resources/thing.md')!;
    expect(page).not.toContain('## Example Usage');
    expect(page).not.toContain('## Import');
  });

  test('front matter descriptions are plain text', () => {
    expect(plainMarkdown('Secrets from `*_env` or `*_wo`, see [the docs](https://x) and **this** or *that*.')).toBe('Secrets from *_env or *_wo, see the docs and this or that.');
  });
});
