// Public construct API of keyward: re-exports only.

export * from './keyward-server';
export * from './cloud-auth-backend';
export * from './cloud-auth-role';
export * from './snapshot-auto-config';
export * from './snapshot-storage';
export { RemovalPolicy } from './manifest-parts';
export { secretFromEnv, type SecretString } from './secret';
export { KeywardValidationError } from './validation';
