/**
 * Where the activity runs, for its supported platforms and orientation (issue 17). The activity
 * settings name `web`, `android` and `ios`; the web app in a phone's browser counts as that phone's
 * platform (by its user agent; an iPad that says "Macintosh" gives itself away by its touch points),
 * anything else as web. The SDK's own `platform` query parameter is `mobile` on a phone, or on a
 * narrow viewport (the layout the activity should pick), else `desktop`.
 */
export type ActivityPlatform = 'web' | 'android' | 'ios';

const NAMES: Record<ActivityPlatform, string> = { web: 'the web', android: 'Android', ios: 'iOS' };

export function devicePlatform(ua = navigator.userAgent, touchPoints = navigator.maxTouchPoints ?? 0): ActivityPlatform {
  if (/Android/i.test(ua)) return 'android';
  if (/iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && touchPoints > 1)) return 'ios';
  return 'web';
}

export function sdkPlatform(platform: ActivityPlatform, narrow: boolean): 'desktop' | 'mobile' {
  return platform !== 'web' || narrow ? 'mobile' : 'desktop';
}

/** The notice shown instead of the activity when the server refused the platform (`detail`: its message). */
export function unsupportedMessage(platform: ActivityPlatform, detail: string): string {
  return `This activity is not available on ${NAMES[platform]}. ${detail}.`;
}

/** Portrait when the page's viewport is taller than wide (what the activity's frame gets). */
export function viewportPortrait(): boolean {
  return innerHeight > innerWidth;
}
