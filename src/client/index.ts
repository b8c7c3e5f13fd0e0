// The typed client for Vault-compatible servers (embedded engine or real Vault).

export { VaultClient } from './vault-client';
export { VaultClientError } from './errors';
export { settingsFromEnv, createDispatcher, defaultRetryPolicy } from './options';
export type { ClientSettings, RetryPolicy, SettingsOverrides, ServerDialect } from './options';
export type { ClientHooks, RetryEvent, Method } from './http';
export type { AuthMount } from './sys-auth';
export type { CloudConfigRead, CloudRoleRead } from './cloud-auth';
export type { SnapshotConfigRead, SnapshotStatus } from './snapshots';
export { EditionError, DialectDetectionError, translatorFor, serverInfoFromHealth } from './dialect';
export type { ServerInfo, Translator, Shape } from './dialect';
