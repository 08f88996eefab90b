import type { SocialLayerScript } from './SocialLayerScript.ts';

// A script component exposes each script instance under its scriptName; this types
// `entity.script.socialLayer`. A game that registers the script under another name declares
// its own.
declare module 'playcanvas' {
  interface ScriptComponent {
    /** The Social Layer panels script, once created on this entity (`SocialLayerScript`). */
    socialLayer?: SocialLayerScript;
  }
}

export {};
