// keyward's programmatic API: the embedded engine, the snapshot agent, the cloud emulator and the
// typed client.
// The cdktf constructs are a separate entry point: `keyward/constructs`.

export { startEngine } from './engine/engine';
export type { Engine, EngineOptions } from './engine/engine';
export { startSnapshotAgent } from './snapshot-agent/agent';
export type { SnapshotAgent, SnapshotAgentOptions } from './snapshot-agent/agent';
export { ManualClock, systemClock } from './engine/clock';
export type { Clock } from './engine/clock';
export * from './cloud-emulator';
export * from './client';
