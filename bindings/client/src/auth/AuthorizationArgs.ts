import { AuthenticationCodeChallengeMethod, type IntegrationType } from '@social-layer/protocol';

/**
 * The value classes of the auth API with the spec's object rules: copy construction (`new X(other)`
 * and `clone()`), `valid()` for `operator bool` (false only for `nullobj`, the uninitialized
 * instance), and getter/setter pairs named after the fields.
 */

/** sdkpp::AuthorizationCodeChallenge: what AuthorizationArgs carries (method and challenge). */
export class AuthorizationCodeChallenge {
  static readonly nullobj: AuthorizationCodeChallenge = Object.freeze(new AuthorizationCodeChallenge(undefined, false)) as AuthorizationCodeChallenge;
  private method_: AuthenticationCodeChallengeMethod = AuthenticationCodeChallengeMethod.S256;
  private challenge_ = '';

  constructor(other?: AuthorizationCodeChallenge, private readonly owned = true) {
    if (other) {
      this.method_ = other.method_;
      this.challenge_ = other.challenge_;
    }
  }

  valid(): boolean {
    return this.owned;
  }
  clone(): AuthorizationCodeChallenge {
    return new AuthorizationCodeChallenge(this);
  }
  method(): AuthenticationCodeChallengeMethod {
    return this.method_;
  }
  setMethod(method: AuthenticationCodeChallengeMethod): void {
    this.method_ = method;
  }
  challenge(): string {
    return this.challenge_;
  }
  setChallenge(challenge: string): void {
    this.challenge_ = challenge;
  }
}

/** sdkpp::AuthorizationCodeVerifier: made only by Client.createAuthorizationCodeVerifier(). */
export class AuthorizationCodeVerifier {
  static readonly nullobj: AuthorizationCodeVerifier = Object.freeze(new AuthorizationCodeVerifier(AuthorizationCodeChallenge.nullobj, '', false)) as AuthorizationCodeVerifier;

  /** @internal use Client.createAuthorizationCodeVerifier(). */
  constructor(private readonly challenge_: AuthorizationCodeChallenge, private readonly verifier_: string, private readonly owned = true) {}

  valid(): boolean {
    return this.owned;
  }
  clone(): AuthorizationCodeVerifier {
    return new AuthorizationCodeVerifier(this.challenge_.clone(), this.verifier_, this.owned);
  }
  /** A copy, so changing it cannot change this verifier. */
  challenge(): AuthorizationCodeChallenge {
    return this.challenge_.clone();
  }
  verifier(): string {
    return this.verifier_;
  }
}

/** sdkpp::AuthorizationArgs: the argument of Client.authorize(). */
export class AuthorizationArgs {
  static readonly nullobj: AuthorizationArgs = Object.freeze(new AuthorizationArgs(undefined, false)) as AuthorizationArgs;
  private clientId_: string | undefined;
  private scopes_ = '';
  private state_: string | undefined;
  private nonce_: string | undefined;
  private codeChallenge_: AuthorizationCodeChallenge | undefined;
  private integrationType_: IntegrationType | undefined;
  private customSchemeParam_: string | undefined;

  constructor(other?: AuthorizationArgs, private readonly owned = true) {
    if (other) {
      this.clientId_ = other.clientId_;
      this.scopes_ = other.scopes_;
      this.state_ = other.state_;
      this.nonce_ = other.nonce_;
      this.codeChallenge_ = other.codeChallenge_?.clone();
      this.integrationType_ = other.integrationType_;
      this.customSchemeParam_ = other.customSchemeParam_;
    }
  }

  valid(): boolean {
    return this.owned;
  }
  clone(): AuthorizationArgs {
    return new AuthorizationArgs(this);
  }

  /** Application ID; when unset, the one from Client.setApplicationId is used. */
  clientId(): string | undefined {
    return this.clientId_;
  }
  setClientId(clientId: string): void {
    this.clientId_ = clientId;
  }
  /** Space-separated scopes, e.g. Client.getDefaultCommunicationScopes(). */
  scopes(): string {
    return this.scopes_;
  }
  setScopes(scopes: string): void {
    this.scopes_ = scopes;
  }
  /** Leave unset: the client then generates a CSPRNG value and checks it on return. */
  state(): string | undefined {
    return this.state_;
  }
  setState(state: string | undefined): void {
    this.state_ = state;
  }
  /** OpenID Connect nonce, echoed in the ID token. */
  nonce(): string | undefined {
    return this.nonce_;
  }
  setNonce(nonce: string | undefined): void {
    this.nonce_ = nonce;
  }
  codeChallenge(): AuthorizationCodeChallenge | undefined {
    return this.codeChallenge_?.clone();
  }
  setCodeChallenge(challenge: AuthorizationCodeChallenge | undefined): void {
    this.codeChallenge_ = challenge?.clone();
  }
  integrationType(): IntegrationType | undefined {
    return this.integrationType_;
  }
  setIntegrationType(type: IntegrationType | undefined): void {
    this.integrationType_ = type;
  }
  /** `<scheme>` makes the redirect `<scheme>:/authorize/callback`. */
  customSchemeParam(): string | undefined {
    return this.customSchemeParam_;
  }
  setCustomSchemeParam(scheme: string | undefined): void {
    this.customSchemeParam_ = scheme;
  }
}

/** sdkpp::DeviceAuthorizationArgs: the argument of Client.getTokenFromDevice(). */
export class DeviceAuthorizationArgs {
  static readonly nullobj: DeviceAuthorizationArgs = Object.freeze(new DeviceAuthorizationArgs(undefined, false)) as DeviceAuthorizationArgs;
  private clientId_: string | undefined;
  private scopes_ = '';

  constructor(other?: DeviceAuthorizationArgs, private readonly owned = true) {
    if (other) {
      this.clientId_ = other.clientId_;
      this.scopes_ = other.scopes_;
    }
  }

  valid(): boolean {
    return this.owned;
  }
  clone(): DeviceAuthorizationArgs {
    return new DeviceAuthorizationArgs(this);
  }
  clientId(): string | undefined {
    return this.clientId_;
  }
  setClientId(clientId: string): void {
    this.clientId_ = clientId;
  }
  scopes(): string {
    return this.scopes_;
  }
  setScopes(scopes: string): void {
    this.scopes_ = scopes;
  }
}
