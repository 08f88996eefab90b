export * from './gateway.ts';
export * from './errors.ts';
export * from './wire.ts';
export * from './limits.ts';
export * from './snowflake.ts';
export * from './sdkEnums.ts';
export * from './voice.ts';
