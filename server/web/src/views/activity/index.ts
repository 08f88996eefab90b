/** Embedded apps (issue 17): the activity page (`/app/activity/APPLICATION_ID`), its SDK host, and the LAUNCH_ACTIVITY launcher. */
export { ActivityView } from './ActivityView.tsx';
export { ActivityLauncher } from './ActivityLauncher.tsx';
export { ActivityShelf } from './ActivityShelf.tsx';
export { LobbyShelf } from './LobbyShelf.tsx';
