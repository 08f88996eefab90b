import { ClientResultError } from '../ClientResultError.ts';
import { checkSnowflake } from '../validation.ts';
import type { DeviceScreen } from './ClientAuth.ts';

const USER_CODE = /^[A-Za-z0-9][A-Za-z0-9 -]{0,62}[A-Za-z0-9]$/;

/**
 * openAuthorizeDeviceScreen / closeAuthorizeDeviceScreen / setAuthorizeDeviceScreenClosedCallback
 * (social-sdk-api.md 2.3): the device screen for a device flow that the game's backend runs
 * (confidential clients), shown through the same DeviceScreen as getTokenFromDevice uses
 * (`setAuthorizeDeviceScreen`; `@social-layer/ui` has a panel for it). The closed callback fires
 * once per shown screen, whether the game closed it or the player dismissed it.
 */
export class AuthorizeDeviceScreen {
  private closedCallback: (() => void) | null = null;
  private shown: { screen: DeviceScreen; token: object } | undefined;

  constructor(
    private readonly screen: () => DeviceScreen | undefined,
    /** Where the activation page lives (the Client's web base). */
    private readonly webBase: () => string,
  ) {}

  open(clientId: string, userCode: string): void {
    checkSnowflake(clientId, 'clientId');
    if (typeof userCode !== 'string' || !USER_CODE.test(userCode)) {
      throw ClientResultError.validation('userCode must be 2-64 characters of letters, digits, spaces and hyphens, as the device authorization response gave it');
    }
    const screen = this.screen();
    if (!screen) {
      throw ClientResultError.validation('no device screen to show: call setAuthorizeDeviceScreen first (e.g. with @social-layer/ui DeviceAuthorizationPanel)');
    }
    if (this.shown) this.close();
    const token = {};
    this.shown = { screen, token };
    const verificationUri = `${this.webBase()}/activate`;
    screen.open({
      clientId,
      userCode,
      verificationUri,
      verificationUriComplete: `${verificationUri}?user_code=${encodeURIComponent(userCode)}`,
      expiresIn: 0,
      dismissed: () => {
        if (this.shown?.token === token) this.finish();
      },
    });
  }

  close(): void {
    const shown = this.shown;
    if (!shown) return;
    shown.screen.close();
    this.finish();
  }

  setClosedCallback(callback: (() => void) | null): void {
    if (callback !== null && typeof callback !== 'function') throw ClientResultError.validation('callback must be a function or null');
    this.closedCallback = callback;
  }

  private finish(): void {
    this.shown = undefined;
    const callback = this.closedCallback;
    if (callback) queueMicrotask(() => callback());
  }
}
