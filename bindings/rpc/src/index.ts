// The public surface of @social-layer/rpc: the IPC wire (codes, frames, envelope, socket paths),
// the server side the companion is built on, the companion itself, and a Node RPC client.
export { FRAME_HEADER_BYTES, IpcOpcode, MAX_FRAME_BYTES, RPC_ACTIVITY_TYPES, RPC_VERSION, RpcCloseCode, RpcCommand, RpcErrorCode, RpcEvent } from './codes.ts';
export { encodeFrame, FrameDecoder, FrameError, type Frame } from './frames.ts';
export { parseRequest, RpcCloseError, RpcError, type RpcMessage, type RpcRequest } from './envelope.ts';
export { DEFAULT_IPC_NAME, IPC_SLOTS, ipcDirectory, ipcPath } from './ipcPath.ts';
export { DEFAULT_LIMITS, IpcConnection, type ConnectionLimits, type RpcHandler } from './IpcConnection.ts';
export { IpcServer, type IpcServerOptions } from './IpcServer.ts';
export { companionSocketExists, RpcClient, type CloseInfo, type RpcClientOptions } from './RpcClient.ts';
export { Companion, type CompanionOptions } from './companion/Companion.ts';
export { COMPANION_OPTIONS, COMPANION_USAGE, companionMain, runCompanion, type CompanionCliValues } from './companion/cli.ts';
export { deviceSignIn, type DeviceSignInArgs } from './companion/deviceSignIn.ts';
export type { UrlOpener } from './companion/authorizeFlow.ts';
export { defaultTokenFile, readTokenFile, TokenFileError, userConfigDir, writeTokenFile, type StoredToken } from './companion/tokenStore.ts';
