import { AuthenticationCodeChallengeMethod, type IntegrationType } from '@social-layer/protocol';

/**
 * The value classes of the auth API with the spec's object rules: copy construction (`new X(other)`
 * and `clone()`), `valid()` for `operator bool` (false only for `nullobj`, the uninitialized
 * instance), and getter/setter pairs named after the fields.
 */

/** sdkpp::AuthorizationCodeChallenge: what AuthorizationArgs carries (method and challenge). */
export class AuthorizationCodeChallenge {
  /** The uninitialized value (the spec's null object): `valid()` is false. */
  static readonly nullobj: AuthorizationCodeChallenge = Object.freeze(new AuthorizationCodeChallenge(undefined, false)) as AuthorizationCodeChallenge;
  private method_: AuthenticationCodeChallengeMethod = AuthenticationCodeChallengeMethod.S256;
  private challenge_ = '';

  constructor(other?: AuthorizationCodeChallenge, private readonly owned = true) {
    if (other) {
      this.method_ = other.method_;
      this.challenge_ = other.challenge_;
    }
  }

  /** Whether this is a real value: false only for `nullobj` (the spec's `operator bool`). */
  valid(): boolean {
    return this.owned;
  }
  /** A copy. */
  clone(): AuthorizationCodeChallenge {
    return new AuthorizationCodeChallenge(this);
  }
  /** The PKCE method (S256). */
  method(): AuthenticationCodeChallengeMethod {
    return this.method_;
  }
  /** Sets what `method()` returns. */
  setMethod(method: AuthenticationCodeChallengeMethod): void {
    this.method_ = method;
  }
  /** The PKCE code challenge sent with the authorization request. */
  challenge(): string {
    return this.challenge_;
  }
  /** Sets what `challenge()` returns. */
  setChallenge(challenge: string): void {
    this.challenge_ = challenge;
  }
}

/** sdkpp::AuthorizationCodeVerifier: made only by Client.createAuthorizationCodeVerifier(). */
export class AuthorizationCodeVerifier {
  /** The uninitialized value (the spec's null object): `valid()` is false. */
  static readonly nullobj: AuthorizationCodeVerifier = Object.freeze(new AuthorizationCodeVerifier(AuthorizationCodeChallenge.nullobj, '', false)) as AuthorizationCodeVerifier;

  /** @internal use Client.createAuthorizationCodeVerifier(). */
  constructor(private readonly challenge_: AuthorizationCodeChallenge, private readonly verifier_: string, private readonly owned = true) {}

  /** Whether this is a real value: false only for `nullobj` (the spec's `operator bool`). */
  valid(): boolean {
    return this.owned;
  }
  /** A copy. */
  clone(): AuthorizationCodeVerifier {
    return new AuthorizationCodeVerifier(this.challenge_.clone(), this.verifier_, this.owned);
  }
  /** A copy, so changing it cannot change this verifier. */
  challenge(): AuthorizationCodeChallenge {
    return this.challenge_.clone();
  }
  /** The PKCE code verifier the token exchange sends. */
  verifier(): string {
    return this.verifier_;
  }
}

/** sdkpp::AuthorizationArgs: the argument of Client.authorize(). */
export class AuthorizationArgs {
  /** The uninitialized value (the spec's null object): `valid()` is false. */
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

  /** Whether this is a real value: false only for `nullobj` (the spec's `operator bool`). */
  valid(): boolean {
    return this.owned;
  }
  /** A copy. */
  clone(): AuthorizationArgs {
    return new AuthorizationArgs(this);
  }

  /** Application ID; when unset, the one from Client.setApplicationId is used. */
  clientId(): string | undefined {
    return this.clientId_;
  }
  /** Sets what `clientId()` returns. */
  setClientId(clientId: string): void {
    this.clientId_ = clientId;
  }
  /** Space-separated scopes, e.g. Client.getDefaultCommunicationScopes(). */
  scopes(): string {
    return this.scopes_;
  }
  /** Sets what `scopes()` returns. */
  setScopes(scopes: string): void {
    this.scopes_ = scopes;
  }
  /** Leave unset: the client then generates a CSPRNG value and checks it on return. */
  state(): string | undefined {
    return this.state_;
  }
  /** Sets what `state()` returns. */
  setState(state: string | undefined): void {
    this.state_ = state;
  }
  /** OpenID Connect nonce, echoed in the ID token. */
  nonce(): string | undefined {
    return this.nonce_;
  }
  /** Sets what `nonce()` returns. */
  setNonce(nonce: string | undefined): void {
    this.nonce_ = nonce;
  }
  /** The PKCE challenge to send; without one, authorize makes its own. */
  codeChallenge(): AuthorizationCodeChallenge | undefined {
    return this.codeChallenge_?.clone();
  }
  /** Sets what `codeChallenge()` returns. */
  setCodeChallenge(challenge: AuthorizationCodeChallenge | undefined): void {
    this.codeChallenge_ = challenge?.clone();
  }
  /** Install context to authorize for (guild or user install), if any. */
  integrationType(): IntegrationType | undefined {
    return this.integrationType_;
  }
  /** Sets what `integrationType()` returns. */
  setIntegrationType(type: IntegrationType | undefined): void {
    this.integrationType_ = type;
  }
  /** `<scheme>` makes the redirect `<scheme>:/authorize/callback`. */
  customSchemeParam(): string | undefined {
    return this.customSchemeParam_;
  }
  /** Sets what `customSchemeParam()` returns. */
  setCustomSchemeParam(scheme: string | undefined): void {
    this.customSchemeParam_ = scheme;
  }
}

/** sdkpp::DeviceAuthorizationArgs: the argument of Client.getTokenFromDevice(). */
export class DeviceAuthorizationArgs {
  /** The uninitialized value (the spec's null object): `valid()` is false. */
  static readonly nullobj: DeviceAuthorizationArgs = Object.freeze(new DeviceAuthorizationArgs(undefined, false)) as DeviceAuthorizationArgs;
  private clientId_: string | undefined;
  private scopes_ = '';

  constructor(other?: DeviceAuthorizationArgs, private readonly owned = true) {
    if (other) {
      this.clientId_ = other.clientId_;
      this.scopes_ = other.scopes_;
    }
  }

  /** Whether this is a real value: false only for `nullobj` (the spec's `operator bool`). */
  valid(): boolean {
    return this.owned;
  }
  /** A copy. */
  clone(): DeviceAuthorizationArgs {
    return new DeviceAuthorizationArgs(this);
  }
  /** Application ID; when unset, the one from Client.setApplicationId is used. */
  clientId(): string | undefined {
    return this.clientId_;
  }
  /** Sets what `clientId()` returns. */
  setClientId(clientId: string): void {
    this.clientId_ = clientId;
  }
  /** The scopes to ask for, space-separated. */
  scopes(): string {
    return this.scopes_;
  }
  /** Sets what `scopes()` returns. */
  setScopes(scopes: string): void {
    this.scopes_ = scopes;
  }
}
