// The plugin-protocol layer: `serve` runs a ProviderDefinition as a Terraform provider process.
export { serve, type ServeOptions } from './serve';
export * from './contract';
