/** Commands and interactions in the web app (issue 13): the picker above the composer, message controls, modal dialogs. */
export { CommandBar } from './CommandBar.tsx';
export { ComponentButton, ComponentSelect } from './MessageControls.tsx';
export { InteractionHost } from './ModalHost.tsx';
