// Every field of the role field table has a construct prop (camelCase of the wire name), checked
// by the type checker: a field added to the table without a prop makes `npm run typecheck` (the
// first step of `npm test`) fail on the line below, naming the prop that is missing.

import type { IamRoleProps, VmRoleProps } from '../../../constructs/cloud-auth-role';
import type { RoleFieldValues } from '../../../src/schema/cloud-role-fields';

type Camel<S extends string> = S extends `${infer A}_${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;
/** `type` is chosen by the factory (CloudAuthRole.iam / .vm), not a prop. */
type RoleFieldProps = Camel<Exclude<keyof RoleFieldValues & string, 'type'>>;
/** Props a caller can set: a prop typed `never` (another type's field, refused by type) does not count. */
type Settable<T> = { [K in keyof T]-?: [NonNullable<T[K]>] extends [never] ? never : K }[keyof T];
type MissingRoleProps = Exclude<RoleFieldProps, Settable<IamRoleProps> | Settable<VmRoleProps>>;

const everyRoleFieldHasAProp: [MissingRoleProps] extends [never] ? true : { missing: MissingRoleProps } = true;

test('every role field has a construct prop (a type check: see the comment above)', () => {
  expect(everyRoleFieldHasAProp).toBe(true);
});
