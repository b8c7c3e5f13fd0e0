// The cloud emulator: public entry points (re-exports only).

export { startCloudEmulator, type CloudEmulator, type CloudEmulatorOptions } from './server';
export { parseDescription, descriptionSchema, type Description } from './description';
export { type MintServiceAccountOptions, type MintInstanceOptions } from './mint';
export { type ServiceAccountKeyFile } from './keys';
