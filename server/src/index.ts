export { startServer, type ServerOptions, type RunningServer } from './startServer.ts';
export type { CreatedApplication } from './storage/ApplicationRepo.ts';
export type { DatabaseConfig } from './storage/database.ts';
export { openDatabase } from './storage/database.ts';
export { Store } from './storage/Store.ts';
export { createLogger, redact, type Logger, type LogLevel, type LogSink } from './log/Logger.ts';
export { LocalEventBus, userTopic, type EventBus, type Dispatch } from './events/EventBus.ts';
