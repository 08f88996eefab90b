/** The engines a new game can start from, each with the repository sample its template is made from. */
export interface EngineChoice {
  /** What `--engine` takes. */
  id: string;
  /** The engine's name as people write it. */
  label: string;
  /** The sample (a folder of the repository's samples/) the template is copied from. */
  sample: string;
  /** The Social Layer plugin for the engine. */
  plugin: string;
}

/** Every engine template, in the order the prompt lists them. */
export const ENGINES: readonly EngineChoice[] = [
  { id: 'phaser', label: 'Phaser', sample: 'phaser-lobby', plugin: '@social-layer/phaser' },
  { id: 'babylon', label: 'Babylon.js', sample: 'babylon-lobby', plugin: '@social-layer/babylon' },
  { id: 'playcanvas', label: 'PlayCanvas', sample: 'playcanvas-lobby', plugin: '@social-layer/playcanvas' },
];

/** The engine named `id` (case-insensitive), or undefined. */
export function findEngine(id: string): EngineChoice | undefined {
  const wanted = id.trim().toLowerCase();
  return ENGINES.find((engine) => engine.id === wanted || engine.label.toLowerCase() === wanted);
}
