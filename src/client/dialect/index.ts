// The server dialect: keyward's names or Vault's, detected from sys/health, translated in one place.

export { translatorFor, type Translator, type TranslatorOptions } from './translator';
export { serverInfoFromHealth, editionName, DialectDetectionError, HEALTH_STATUSES, type ServerInfo } from './detect';
export { EditionError } from './edition';
export type { Shape } from './tables';
