import type { SocialLayerPlugin } from './SocialLayerPlugin.ts';

// Phaser declares its API as the global namespace `Phaser` (and `export = Phaser` for the
// module), so the scene property is added there. It matches SocialLayerPlugin.mapping; a game
// that installs the plugin under another mapping should declare its own.
declare global {
  namespace Phaser {
    interface Scene {
      /** Social Layer lobby panels (installed by `SocialLayerPlugin.sceneConfig()`). */
      socialLayer: SocialLayerPlugin;
    }
  }
}

export {};
