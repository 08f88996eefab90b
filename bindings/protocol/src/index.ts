/**
 * @social-layer/protocol: wire types, opcodes, close codes, error codes and SDK enums shared by the client and the server.
 *
 * @module @social-layer/protocol
 */
export * from './gateway.ts';
export * from './errors.ts';
export * from './wire.ts';
export * from './limits.ts';
export * from './snowflake.ts';
export * from './sdkEnums.ts';
export * from './voice.ts';
export * from './socialEnums.ts';
export * from './socialLimits.ts';
export * from './socialWire.ts';
export * from './auth.ts';
