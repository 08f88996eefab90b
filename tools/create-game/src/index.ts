/** @social-layer/create-game: `npm create @social-layer/game`, and the same as a function. */
export { createGame, sdkVersion, type CreateGameOptions, type CreatedGame } from './createGame.ts';
export { ENGINES, findEngine, type EngineChoice } from './engines.ts';
export { writeTemplate, type TemplateManifest } from './templates.ts';
export { gameReadme } from './readme.ts';
