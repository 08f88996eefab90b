/**
 * @social-layer/client/desktop: the Node-only part of the Client, kept out of the main entry so
 * that browser bundles never pull in node:net. Pass `ipcDesktopCompanion()` as the Client's
 * `desktopCompanion` option.
 *
 * @module @social-layer/client/desktop
 */
export { ipcDesktopCompanion, type IpcDesktopCompanion, type IpcDesktopCompanionOptions } from './ipcCompanion.ts';
