// oidc-provider 9 ships no type declarations; the tests use it only as a real OIDC issuer.
declare module 'oidc-provider' {
  const Provider: new (issuer: string, configuration?: Record<string, unknown>) => { callback(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void };
  export default Provider;
}
